package dev.unicomm.internal.checked;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts RMA operations between two quiets for {@link RmaBatchEvent}. Callers touch it only while
 * the event type is enabled, so the hot path pays one enabled-check when JFR is not recording.
 */
final class RmaTally {
    private static final int NO_PEER = -2, SEVERAL = -1;
    private final LongAdder puts = new LongAdder(),
            putBytes = new LongAdder(),
            gets = new LongAdder(),
            getBytes = new LongAdder(),
            signalPuts = new LongAdder(),
            atomics = new LongAdder(),
            quiets = new LongAdder();
    private final AtomicInteger peer = new AtomicInteger(NO_PEER);
    private final AtomicLong firstIssue = new AtomicLong();

    static boolean on() {
        return RmaBatchEvent.TYPE.isEnabled();
    }

    void put(long bytes, int pe) {
        puts.increment();
        putBytes.add(bytes);
        touch(pe);
    }

    void get(long bytes, int pe) {
        gets.increment();
        getBytes.add(bytes);
        touch(pe);
    }

    void putSignal(long bytes, int pe) {
        signalPuts.increment();
        putBytes.add(bytes);
        touch(pe);
    }

    void atomic(int pe) {
        atomics.increment();
        touch(pe);
    }

    void quiet() {
        quiets.increment();
    }

    private void touch(int pe) {
        int p = peer.get();
        if (p == NO_PEER) {
            if (peer.compareAndSet(NO_PEER, pe)) firstIssue.set(System.nanoTime());
            else touch(pe);
        } else if (p != pe && p != SEVERAL) {
            peer.set(SEVERAL);
        }
    }

    /** Moves the counts into {@code e} (which is about to be committed) and starts a new batch. */
    void drainInto(RmaBatchEvent e, long now) {
        e.puts = puts.sumThenReset();
        e.putBytes = putBytes.sumThenReset();
        e.gets = gets.sumThenReset();
        e.getBytes = getBytes.sumThenReset();
        e.signalPuts = signalPuts.sumThenReset();
        e.atomics = atomics.sumThenReset();
        e.quiets = quiets.sumThenReset();
        int p = peer.getAndSet(NO_PEER);
        e.peer = p == NO_PEER ? SEVERAL : p;
        e.batchNanos = p == NO_PEER ? 0 : now - firstIssue.get();
    }
}
