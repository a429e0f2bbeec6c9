package dev.unicomm.api;

/**
 * What a combine needs to route tokens back, produced by a dispatch. A handle belongs to the
 * buffer that made it; using it with another buffer, or after the buffer is closed, throws.
 */
public interface MoeHandle {
    /** Received tokens on this rank. */
    int numRecvTokens();
}
