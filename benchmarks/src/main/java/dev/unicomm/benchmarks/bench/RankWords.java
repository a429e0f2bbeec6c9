package dev.unicomm.benchmarks.bench;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.SymmetricBuffer;
import java.lang.foreign.ValueLayout;

/**
 * One word per rank, exchanged through a small symmetric buffer in host memory: the bench's untimed
 * agreements (end stamps, "warm-up goes on" flags). No collective operation, so nothing else is left
 * on the heap. Collective: every rank creates it and calls {@link #exchange} the same number of times.
 */
final class RankWords implements AutoCloseable {
    private final Communicator comm;
    private final SymmetricBuffer words;
    private final long[] all;

    RankWords(Communicator comm) {
        this.comm = comm;
        this.words = comm.heap().allocate(8L * comm.size());
        this.all = new long[comm.size()];
    }

    /**
     * Publishes {@code mine} to every rank and returns every rank's word, by rank (an array reused by
     * the next call). Every rank has read them before any rank's next call writes.
     */
    long[] exchange(long mine) {
        int me = comm.rank();
        for (int pe = 0; pe < comm.size(); pe++) comm.rma().atomicSet(words, 8L * me, mine, pe);
        comm.rma().quiet();
        comm.barrier();
        for (int pe = 0; pe < comm.size(); pe++) all[pe] = words.segment().get(ValueLayout.JAVA_LONG, 8L * pe);
        comm.barrier();
        return all;
    }

    @Override
    public void close() {
        words.close();
    }
}
