package dev.unicomm.internal.rendezvous;

import java.util.concurrent.TimeUnit;

/**
 * Warnings about peers that anyone on the network can provoke (rejected hellos, dropped
 * connections): at most {@code burst} lines per window, then one line saying how many were left
 * out, so that a flood of junk connections cannot flood rank 0's standard error.
 */
final class RateLimitedLog {
    private final System.Logger log;
    private final int burst;
    private final long windowNanos;
    // Guarded by this.
    private long windowStart = System.nanoTime();
    private int logged;
    private long suppressed;

    RateLimitedLog(System.Logger log, int burst, long window, TimeUnit unit) {
        this.log = log;
        this.burst = burst;
        this.windowNanos = unit.toNanos(window);
    }

    /** Logs {@code message} as a warning unless this window's budget is spent. */
    void warn(String message) {
        String summary = null;
        synchronized (this) {
            long now = System.nanoTime();
            if (now - windowStart >= windowNanos) {
                if (suppressed > 0)
                    summary = suppressed
                            + " more warnings about rejected or dropped connections were left out in the last "
                            + TimeUnit.NANOSECONDS.toSeconds(now - windowStart) + " s";
                windowStart = now;
                logged = 0;
                suppressed = 0;
            }
            if (logged >= burst) {
                suppressed++;
                message = null;
            } else {
                logged++;
            }
        }
        if (summary != null) log.log(System.Logger.Level.WARNING, summary);
        if (message != null) log.log(System.Logger.Level.WARNING, message);
    }

    /** Warnings left out in the current window. */
    synchronized long suppressed() {
        return suppressed;
    }
}
