package dev.unicomm.backend.shm;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.RankFailedException;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;
import java.util.function.Supplier;

/**
 * The idle step of every wait: spin briefly ({@link Thread#onSpinWait()}), then yield, then park
 * for short periods, so that a job with more PEs than cores still makes progress. Every wait is
 * bounded by the communicator's timeout and fails early if a peer died.
 *
 * <p>With more PEs on the host than processors, a spinning PE would hold the core its peer needs,
 * so then waits spin only briefly and yield at once.
 *
 * <p>Use (the first {@link #freeSpins} polls cost nothing but a pause; the description is only
 * built if the wait fails):
 * <pre>{@code
 * Waiter.Wait w = null;
 * Supplier<String> what = null;
 * for (int polls = 1; !condition(); polls++) {
 *     if (polls <= waiter.freeSpins) { Thread.onSpinWait(); continue; }
 *     if (what == null) what = () -> "what we wait for"; // once per wait: a lambda per poll is garbage per poll
 *     w = waiter.idle(w, what);
 * }
 * }</pre>
 */
final class Waiter {
    /** Pure spinning: lowest latency while the peer is running on another core. */
    private static final long SPIN_NS = 20_000;

    /** Polls a caller spins through before the first {@link #idle} call (no clock, no allocation). */
    final int freeSpins;

    private final long spinNs;
    /** Then yield the core to whoever needs it (more PEs than cores). */
    private static final long YIELD_NS = 2_000_000;
    /** Then sleep this long between polls. */
    private static final long PARK_NS = 50_000;

    private final Duration timeout;
    private final long timeoutNs;
    private final Watchdog watchdog;
    private volatile CommAbortedException broken;

    /**
     * @param oversubscribed whether this host runs more PEs than it has processors
     */
    Waiter(Duration timeout, Watchdog watchdog, boolean oversubscribed) {
        this.freeSpins = oversubscribed ? 16 : 256;
        this.spinNs = oversubscribed ? 0 : SPIN_NS;
        this.timeout = timeout;
        this.timeoutNs = timeout.toNanos();
        this.watchdog = watchdog;
    }

    /** Whether a collective wait of this communicator failed (see the class comment). */
    boolean broken() {
        return broken != null;
    }

    /** Whether the job was aborted (through the store) or this communicator is broken. */
    boolean failed() {
        return broken != null || watchdog.jobAborted();
    }

    /** Throws at once if the communicator is broken. */
    void checkBroken() {
        CommAbortedException b = broken;
        if (b instanceof RankFailedException dead)
            throw new RankFailedException(
                    dead.failedRanks(), "this communicator already failed (" + b.getMessage() + ")");
        if (b != null)
            throw new CommAbortedException(
                    b.failedRank(), "this communicator already failed (" + b.getMessage() + "); only close() is left");
    }

    /** The communicator timeout every wait is bounded by. */
    Duration timeout() {
        return timeout;
    }

    /** State of one wait. */
    static final class Wait {
        long start = System.nanoTime();
        int polls;
        long elapsed;
        CommAbortedException pending;

        /** Makes this object a new wait's state (a caller that waits often reuses one instead of allocating). */
        Wait restart() {
            start = System.nanoTime();
            polls = 0;
            elapsed = 0;
            pending = null;
            return this;
        }
    }

    /**
     * Called after a failed poll of the condition; returns the wait's state for the next call.
     *
     * @throws CommTimeoutException if the wait has lasted longer than the timeout
     * @throws CommAbortedException if a peer died (seen on two polls with the condition re-checked between)
     */
    Wait idle(Wait w, Supplier<String> what) {
        return idle(w, what, null);
    }

    /**
     * {@link #idle(Wait, Supplier)} for a collective wait: a timeout or a peer's failure breaks the
     * communicator, and {@code culprit} (evaluated on timeout; {@code -1}: unknown) names the rank to blame.
     */
    Wait idle(Wait w, Supplier<String> what, IntSupplier culprit) {
        if (w == null) {
            if (culprit != null) checkBroken();
            w = new Wait();
        }
        int n = ++w.polls;
        // Spinning polls are cheap: look at the clock every 64th; later polls are slow anyway.
        if ((n & 63) == 0 || w.elapsed >= spinNs) {
            long now = System.nanoTime();
            w.elapsed = now - w.start;
            if (w.elapsed > timeoutNs) {
                String text = what.get();
                CommTimeoutException t = new CommTimeoutException(text, timeout);
                if (culprit != null) {
                    int c = culprit.getAsInt();
                    String reason = "a wait of " + timeout.toMillis() + " ms for it timed out: " + text;
                    broken = new CommAbortedException(c, reason);
                    watchdog.giveUp(c, reason);
                }
                throw t;
            }
            if (w.pending != null) {
                CommAbortedException a = w.pending;
                if (culprit != null && broken == null) {
                    broken = a;
                    watchdog.giveUp(a.failedRank(), a.getMessage(), a instanceof RankFailedException);
                }
                throw a;
            }
            w.pending = watchdog.poll(now, what);
        }
        if (w.elapsed < spinNs) {
            Thread.onSpinWait();
        } else if (w.elapsed < YIELD_NS) {
            Thread.yield();
        } else {
            LockSupport.parkNanos(PARK_NS);
        }
        return w;
    }
}
