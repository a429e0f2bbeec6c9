package dev.unicomm.collectives.moe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.Combined;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.Dispatched;
import dev.unicomm.api.LowLatencyCombined;
import dev.unicomm.api.LowLatencyDispatched;
import dev.unicomm.api.Memory;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Tensor;
import dev.unicomm.spi.ForwardingBackendCommunicator;
import dev.unicomm.spi.ForwardingRma;
import dev.unicomm.testsupport.ThreadJob;
import dev.unicomm.testsupport.threads.ThreadWorld;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Where a backend reaches its peers only by RMA (no direct access), the portable MoE reads the rows of a
 * low-latency receive and of a combine with non-blocking gets completed by one quiet per batch, not with one
 * blocking get per row: over UCX's TCP transport each blocking get is a round trip the peer's worker must
 * serve, and the row-by-row reads made those operations 3-80x their copy bound across two hosts. Counted on
 * thread-PEs whose RMA counts its blocking calls: the count must not grow with the rows moved.
 */
class BatchedPeerReadsTest {
    private static final int RANKS = 2, EXPERTS = 8, HIDDEN = 64, TOKENS = 32, TOPK = 4;

    /** Counts the calls that wait for the peer (blocking gets and quiets) and the gets that do not. */
    static final class CountingRma extends ForwardingRma {
        long blockingGets, quiets, nonBlockingGets;

        CountingRma(Rma delegate) {
            super(delegate);
        }

        @Override
        public void get(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
            blockingGets++;
            super.get(dst, dstOffset, src, srcOffset, bytes, pe);
        }

        @Override
        public void getNbi(Memory dst, long dstOffset, SymmetricBuffer src, long srcOffset, long bytes, int pe) {
            nonBlockingGets++;
            super.getNbi(dst, dstOffset, src, srcOffset, bytes, pe);
        }

        @Override
        public void quiet() {
            quiets++;
            super.quiet();
        }

        long waits() {
            return blockingGets + quiets;
        }
    }

    @Test
    void lowLatencyReceiveAndCombineWaitOncePerBatchNotPerRow() {
        onThreadsWithoutDirectAccess(MoeConfig.Mode.LOW_LATENCY, (comm, c, a, cfg) -> {
            try (LowLatencyMoe moe = new LowLatencyMoe(comm, cfg)) {
                Tensor idx = ids(a, comm.rank()), wts = weights(a), x = tokens(a);
                LowLatencyDispatched d = moe.lowLatencyDispatch(x, idx, false);
                long waits = c.waits(), nbi = c.nonBlockingGets;
                d.hook().await();
                long rows = rowsFromPeer(comm.rank(), idx); // the peer's routing is built alike
                assertTrue(rows >= 10, "the routing sends rows across: " + rows);
                // One blocking get of the peer's ids, one quiet for all of its rows.
                assertEquals(2, c.waits() - waits, "waits of a receive that fetched " + rows + " rows");
                assertTrue(c.nonBlockingGets - nbi >= 1, "rows fetched with non-blocking gets");

                waits = c.waits();
                nbi = c.nonBlockingGets;
                LowLatencyCombined comb = moe.lowLatencyCombine(d.recvX(), idx, wts, d.handle());
                comb.hook().await();
                assertEquals(1, c.blockingGets, "no blocking get besides the receive's read of the peer's ids");
                // The combine's own quiet before its signal, and one for its batch of rows.
                assertEquals(2, c.waits() - waits, "waits of a combine that read " + rows + " rows");
                // My rows lie in token order in each expert's slots on the peer: at most one get per expert there.
                long gets = c.nonBlockingGets - nbi;
                assertTrue(gets >= 1 && gets <= EXPERTS / RANKS, "gets of a combine of " + rows + " rows: " + gets);
            }
        });
    }

    @Test
    void normalCombineWaitsOncePerBatchNotPerRow() {
        onThreadsWithoutDirectAccess(MoeConfig.Mode.NORMAL, (comm, c, a, cfg) -> {
            try (NormalMoe moe = new NormalMoe(comm, cfg)) {
                Tensor idx = ids(a, comm.rank()), wts = weights(a), x = tokens(a);
                Dispatched d = moe.dispatch(x, null, idx, wts, moe.layout(idx), 1);
                long waits = c.waits(), nbi = c.nonBlockingGets;
                Combined comb = moe.combine(d.recvX(), d.handle(), d.recvTopkWeights());
                long rows = rowsFromPeer(comm.rank(), idx);
                assertTrue(rows >= 10, "the routing sends rows across: " + rows);
                // One quiet for every row; the other waits are the combine's start (the peer's flags word).
                long startWaits = RANKS - 1;
                assertEquals(startWaits + 1, c.waits() - waits, "waits of a combine of " + rows + " rows");
                // My rows and weights lie in token order on the peer: one get for each.
                assertEquals(2, c.nonBlockingGets - nbi, "gets of a combine of " + rows + " rows");
                assertEquals(TOKENS, comb.x().dim(0));
            }
        });
    }

    /** What a test runs on each rank: its communicator, its counting RMA, an arena and the MoE shape. */
    interface OnRank {
        void run(Communicator comm, CountingRma rma, Arena arena, MoeConfig cfg) throws Exception;
    }

    /** Runs {@code body} on two thread-PEs whose buffers offer no direct access (every MoE byte by RMA). */
    private static void onThreadsWithoutDirectAccess(MoeConfig.Mode mode, OnRank body) {
        MoeConfig cfg = new MoeConfig(mode, EXPERTS, HIDDEN, TOKENS, TOPK, false);
        CountingRma[] rma = new CountingRma[RANKS];
        try (ThreadWorld w = ThreadWorld.create(RANKS, false, 16L << 20)) {
            countingJob(w, rma).runOk(comm -> {
                try (Arena a = Arena.ofConfined()) {
                    body.run(comm, rma[comm.rank()], a, cfg);
                }
            });
        }
    }

    private static ThreadJob countingJob(ThreadWorld w, CountingRma[] rma) {
        return ThreadJob.of(
                        w.report(),
                        ctx -> new ForwardingBackendCommunicator(w.open(ctx)) {
                            private final CountingRma counting =
                                    rma[ctx.rank()] = new CountingRma(delegate().rma());

                            @Override
                            public Rma rma() {
                                return counting;
                            }
                        },
                        RANKS)
                .heapSize(16L << 20);
    }

    /** Top-k ids without repeats: every token sends to both ranks' experts. */
    private static Tensor ids(Arena a, int rank) {
        Random rnd = new Random(7 + rank);
        Tensor t = Tensor.allocate(a, DType.INT64, TOKENS, TOPK);
        for (int i = 0; i < TOKENS; i++) {
            int first = rnd.nextInt(EXPERTS / 2);
            for (int k = 0; k < TOPK; k++) {
                long e = k < TOPK / 2 ? (first + k) % (EXPERTS / 2) : EXPERTS / 2 + (first + k) % (EXPERTS / 2);
                t.segment().setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, (long) i * TOPK + k, e);
            }
        }
        return t;
    }

    private static Tensor weights(Arena a) {
        Tensor t = Tensor.allocate(a, DType.FP32, TOKENS, TOPK);
        for (int i = 0; i < TOKENS * TOPK; i++) t.segment().setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, 0.25f);
        return t;
    }

    private static Tensor tokens(Arena a) {
        Tensor t = Tensor.allocate(a, DType.BF16, TOKENS, HIDDEN);
        MemorySegment s = t.segment();
        for (int i = 0; i < TOKENS * HIDDEN; i++) s.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, (short) 0x3f80);
        return t;
    }

    /** (token, expert) pairs of this rank's routing hosted by the other rank: rows its combine reads from there. */
    private static long rowsFromPeer(int rank, Tensor idx) {
        long n = 0;
        for (int i = 0; i < TOKENS * TOPK; i++) {
            long e = idx.segment().getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i);
            if (e / (EXPERTS / RANKS) != rank) n++;
        }
        return n;
    }
}
