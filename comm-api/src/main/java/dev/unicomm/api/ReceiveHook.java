package dev.unicomm.api;

/**
 * Completes the receive half of a low-latency operation. The send half is already issued when the
 * operation returns, so the caller can compute between the two (DeepEP's {@code return_recv_hook}).
 */
@FunctionalInterface
public interface ReceiveHook {
    /** Waits for the data; calling it again does nothing. */
    void await();
}
