package dev.unicomm.backend.shm;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.RankFailedException;
import dev.unicomm.spi.Store;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.function.Supplier;

/**
 * Notices failed peers while a PE waits. On every poll it reads each peer's <em>blame word</em> (a PE
 * that gives up writes there which rank it failed because of, and why) and asks the rendezvous store
 * whether a rank aborted ({@link Store#checkHealthy()}, a local read); every {@value #PERIOD_MS} ms it
 * also checks that each peer's process is alive: it still holds the lock on its heap file (the kernel
 * drops it when the process dies; unlike a pid this works across PID namespaces and containers). A dead peer that had published a blame word is not
 * blamed itself: the rank it named is, so a survivor that exits after a failure is never mistaken
 * for its cause. Nor is a peer that passed its closing barrier and let its lock go while we still finish
 * that barrier. A wait that sees a failure re-checks its condition once more before failing, so a
 * peer that finished its part and exited is not mistaken for a failure.
 */
final class Watchdog {
    static final long PERIOD_MS = 100;
    /** Set in a blame word (elastic mode) when the named rank's process died, rather than hung or aborted. */
    private static final long DEAD = 1L << 40;

    private final int self;
    private final long[] pids;
    private final SegmentFiles.Handle[] files;
    private final Store store;
    private final MemorySegment[] controls;
    private long nextCheck;
    /** Elastic mode: a dead peer is a {@link RankFailedException}, and it does not abort the job. */
    private final boolean elastic;

    Watchdog(int self, long[] pids, SegmentFiles.Handle[] files, Store store, MemorySegment[] controls) {
        this(self, pids, files, store, controls, false);
    }

    Watchdog(
            int self,
            long[] pids,
            SegmentFiles.Handle[] files,
            Store store,
            MemorySegment[] controls,
            boolean elastic) {
        this.elastic = elastic;
        this.self = self;
        this.pids = pids.clone();
        this.files = files.clone();
        this.store = store;
        this.controls = controls.clone();
        this.nextCheck = System.nanoTime() + PERIOD_MS * 1_000_000;
    }

    /**
     * A failure to report, or {@code null} if all is well (or it is not time to check yet).
     *
     * @param now  {@link System#nanoTime()}
     * @param what the wait in progress, for the message
     */
    CommAbortedException poll(long now, Supplier<String> what) {
        // Peers' blame words first: they name the cause, where the store names whoever aborted first.
        CommAbortedException peerSays = blamedByPeers();
        if (peerSays != null) return peerSays;
        CommAbortedException storeSays = storeHealth();
        if (storeSays != null || now - nextCheck < 0) return storeSays;
        nextCheck = now + PERIOD_MS * 1_000_000;
        return checkPeers(what.get());
    }

    /** Whether the rendezvous store reports the job aborted. */
    boolean jobAborted() {
        return storeHealth() != null;
    }

    private CommAbortedException storeHealth() {
        try {
            store.checkHealthy();
            return null;
        } catch (CommAbortedException e) {
            return e;
        }
    }

    /**
     * Publishes, once, that this PE gives up because of {@code culprit} ({@code -1}: the rendezvous
     * host), then aborts the job through the store so that ranks blocked elsewhere (rank 0 closing its
     * store) stop too. The store call runs on a helper thread bounded to 1 s: a hung host must not hold us.
     */
    void giveUp(int culprit, String reason) {
        giveUp(culprit, reason, false);
    }

    /**
     * As {@link #giveUp(int, String)}; in elastic mode a {@code dead} culprit (its process exited) is
     * published as such and the job is not aborted: the survivors go on with a shrunken communicator.
     */
    void giveUp(int culprit, String reason, boolean dead) {
        boolean survivable = elastic && dead && culprit >= 0;
        MemorySegment mine = controls[self];
        if (Words.getAcquire(mine, Control.HDR_BLAME) != 0) return;
        byte[] text = reason.getBytes(StandardCharsets.UTF_8);
        int len = Math.min(text.length, Control.REASON_BYTES);
        MemorySegment.copy(MemorySegment.ofArray(text), 0, mine, Control.HDR_REASON, len);
        Words.setPlain(mine, Control.HDR_REASON_LEN, len);
        Words.setRelease(mine, Control.HDR_BLAME, culprit + 2L + (survivable ? DEAD : 0));
        if (survivable || jobAborted()) return;
        Thread t = Thread.ofPlatform().daemon().name("unicomm-shm-abort").start(() -> {
            try {
                store.abort("rank " + (culprit >= 0 ? culprit : "?") + " failed or hung (reported by rank " + self
                        + "): " + reason);
            } catch (RuntimeException e) {
                // the job is failing anyway; the blame word already tells the shm peers
            }
        });
        try {
            t.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private CommAbortedException blamedByPeers() {
        for (int r = 0; r < controls.length; r++) {
            if (r == self) continue;
            CommAbortedException e = blameOf(r);
            if (e != null) return e;
        }
        return null;
    }

    /** What peer {@code r} published when it gave up, or {@code null}. */
    private CommAbortedException blameOf(int r) {
        long word = Words.getAcquire(controls[r], Control.HDR_BLAME);
        if (word == 0) return null;
        boolean dead = (word & DEAD) != 0;
        int culprit = (int) ((word & ~DEAD) - 2);
        int len =
                (int) Math.min(Math.max(0, Words.getPlain(controls[r], Control.HDR_REASON_LEN)), Control.REASON_BYTES);
        String reason = new String(
                controls[r].asSlice(Control.HDR_REASON, len).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE),
                StandardCharsets.UTF_8);
        String why = reason + (culprit == r ? "" : " (reported by rank " + r + ")");
        return dead ? new RankFailedException(new int[] {culprit}, why) : new CommAbortedException(culprit, why);
    }

    /** Peer {@code r} passed its closing barrier: it owes us nothing more, so its exit is no failure. */
    private boolean leftCleanly(int r) {
        return Words.getAcquire(controls[r], Control.HDR_LEFT) != 0;
    }

    /** Whether every peer's process still runs (holds its heap file's lock) or left after closing. */
    CommAbortedException checkPeers(String what) {
        for (int r = 0; r < files.length; r++) {
            if (r == self || files[r].ownerAlive() || leftCleanly(r)) continue;
            CommAbortedException blamed = blameOf(r);
            if (blamed != null) return blamed;
            String why = "its process (pid " + pids[r] + " in its PID namespace) exited while rank " + self
                    + " waited on " + what;
            return elastic ? new RankFailedException(new int[] {r}, why) : new CommAbortedException(r, why);
        }
        return null;
    }
}
