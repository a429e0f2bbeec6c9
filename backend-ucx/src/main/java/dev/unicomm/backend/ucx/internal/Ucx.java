package dev.unicomm.backend.ucx.internal;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.CommException;
import dev.unicomm.api.NativeCallException;
import java.util.concurrent.locks.LockSupport;

/** Turns UCX statuses into unicomm exceptions that carry UCX's own words ({@code ucs_status_string}). */
final class Ucx {
    private Ucx() {}

    // Statuses that mean the peer (or the path to it) is gone.
    private static final byte ERR_UNREACHABLE = -6,
            ERR_CONNECTION_RESET = -25,
            ERR_ENDPOINT_TIMEOUT = -80,
            ERR_CANCELED = -16;
    /** How long a peer failure seen by UCX waits for the store to name the dead rank. */
    private static final long STORE_GRACE_NANOS = 2_000_000_000L;

    static void check(Ucp ucp, byte status, String call) {
        if (status != UcpAbi.OK) throw new NativeCallException(call, status, ucp.statusString(status));
    }

    /**
     * The exception for a failed request: when the peer is gone, the store's {@code CommAbortedException}
     * naming the dead rank (it learns of the death through the rank's dropped connection, given a moment),
     * else a {@code CommAbortedException} naming the target PE; otherwise a {@code NativeCallException}.
     */
    static CommException failure(Ucp ucp, byte status, String call, int pe, Runnable health) {
        String words = ucp.statusString(status);
        boolean peerGone = status == ERR_UNREACHABLE
                || status == ERR_CONNECTION_RESET
                || status == ERR_ENDPOINT_TIMEOUT
                || status == ERR_CANCELED;
        if (peerGone) {
            long end = System.nanoTime() + STORE_GRACE_NANOS;
            while (System.nanoTime() - end < 0) {
                health.run(); // throws naming the rank once the store knows
                LockSupport.parkNanos(10_000_000L);
            }
            if (pe >= 0) return new CommAbortedException(pe, call + ": " + words + " (UCX status " + status + ")");
        }
        return new NativeCallException(call + (pe >= 0 ? " to PE " + pe : ""), status, words);
    }
}
