package dev.unicomm.api;

/**
 * What a combine needs to route tokens back, produced by a dispatch. A handle belongs to the
 * buffer that made it; using it with another buffer, after the buffer is closed, or (low-latency)
 * after two newer low-latency dispatches throws {@link IllegalStateException} or
 * {@link IllegalArgumentException} naming it.
 */
public interface MoeHandle {
    /** Which mode's dispatch made it. */
    MoeConfig.Mode mode();

    /** Tokens this rank dispatched ({@code T}). */
    int numTokens();

    /**
     * Tokens this rank received: {@code N} rows of {@code recvX} in normal mode; in low-latency
     * mode the sum of {@code recvCount} (known after the hook ran, {@code -1} before).
     */
    int numRecvTokens();
}
