package dev.unicomm.backend.shm;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.CommTimeoutException;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * The idle step of every wait: spin briefly ({@link Thread#onSpinWait()}), then yield, then park
 * for short periods, so that a job with more PEs than cores still makes progress. Every wait is
 * bounded by the communicator's timeout and fails early if a peer died.
 *
 * <p>Use: {@code for (Waiter.Wait w = null; !condition(); ) w = waiter.idle(w, what);}
 */
final class Waiter {
    /** Pure spinning: lowest latency while the peer is running on another core. */
    private static final long SPIN_NS = 20_000;
    /** Then yield the core to whoever needs it (more PEs than cores). */
    private static final long YIELD_NS = 2_000_000;
    /** Then sleep this long between polls. */
    private static final long PARK_NS = 50_000;

    private final Duration timeout;
    private final long timeoutNs;
    private final Watchdog watchdog;

    Waiter(Duration timeout, Watchdog watchdog) {
        this.timeout = timeout;
        this.timeoutNs = timeout.toNanos();
        this.watchdog = watchdog;
    }

    /** State of one wait. */
    static final class Wait {
        final long start = System.nanoTime();
        int polls;
        long elapsed;
        CommAbortedException pending;
    }

    /**
     * Called after a failed poll of the condition; returns the wait's state for the next call.
     *
     * @throws CommTimeoutException if the wait has lasted longer than the timeout
     * @throws CommAbortedException if a peer died (seen on two polls with the condition re-checked between)
     */
    Wait idle(Wait w, String what) {
        if (w == null) w = new Wait();
        int n = ++w.polls;
        // Spinning polls are cheap: look at the clock every 64th; later polls are slow anyway.
        if ((n & 63) == 0 || w.elapsed >= SPIN_NS) {
            long now = System.nanoTime();
            w.elapsed = now - w.start;
            if (w.elapsed > timeoutNs) throw new CommTimeoutException(what, timeout);
            if (w.pending != null) throw w.pending;
            w.pending = watchdog.poll(now, what);
        }
        if (w.elapsed < SPIN_NS) {
            Thread.onSpinWait();
        } else if (w.elapsed < YIELD_NS) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(PARK_NS);
        }
        return w;
    }
}
