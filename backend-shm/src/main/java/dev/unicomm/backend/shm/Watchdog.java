package dev.unicomm.backend.shm;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.spi.Store;
import java.util.function.Supplier;

/**
 * Notices dead peers while a PE waits: every {@value #PERIOD_MS} ms it checks that each peer's
 * process is alive (all PEs share this host, so a pid says it) and asks the rendezvous store
 * whether a rank aborted ({@link Store#checkHealthy()}, a local read, on every poll). A wait that
 * sees a failure re-checks its condition once more before failing, so a peer that finished its part and exited is not mistaken for a failure.
 */
final class Watchdog {
    static final long PERIOD_MS = 100;

    private final int self;
    private final long[] pids;
    private final Store store;
    private long nextCheck;

    Watchdog(int self, long[] pids, Store store) {
        this.self = self;
        this.pids = pids.clone();
        this.store = store;
        this.nextCheck = System.nanoTime() + PERIOD_MS * 1_000_000;
    }

    /**
     * A failure to report, or {@code null} if all is well (or it is not time to check yet).
     *
     * @param now  {@link System#nanoTime()}
     * @param what the wait in progress, for the message
     */
    CommAbortedException poll(long now, Supplier<String> what) {
        CommAbortedException storeSays = storeHealth();
        if (storeSays != null || now - nextCheck < 0) return storeSays;
        nextCheck = now + PERIOD_MS * 1_000_000;
        return checkPeers(what.get());
    }

    private CommAbortedException storeHealth() {
        try {
            store.checkHealthy();
            return null;
        } catch (CommAbortedException e) {
            return e;
        }
    }

    /** Whether every peer's process still runs. */
    CommAbortedException checkPeers(String what) {
        for (int r = 0; r < pids.length; r++) {
            if (r == self) continue;
            long pid = pids[r];
            boolean alive = ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
            if (!alive)
                return new CommAbortedException(r, "its process (pid " + pid + ") exited while rank " + self + " waited on " + what);
        }
        return null;
    }
}
