package dev.unicomm.benchmarks.bench;

import dev.unicomm.api.Capability;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.Dispatched;
import dev.unicomm.api.ExpertMask;
import dev.unicomm.api.LowLatencyCombined;
import dev.unicomm.api.LowLatencyDispatched;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.MoeLayout;
import dev.unicomm.api.Tensor;
import dev.unicomm.moe.reference.KitTensors;
import java.util.function.LongUnaryOperator;
import java.util.stream.IntStream;

/**
 * {@code bench moe --inactive N}: after a mode's all-active rounds, the same operations on the same open
 * buffer with its last N ranks inactive ({@link MoeBuffer#setActiveRanks}), timed the same way and
 * printed as rows of their own ("... (N inactive)"). The inactive ranks stay in the job (the barriers
 * between operations and the host's end stamps are the communicator's, which has no mask) but call
 * nothing on the buffer, as a rank that left the MoE would. The first results are verified against the
 * reference with the same drops ({@link MoeBenchData#masked}).
 */
record MoeMaskedRounds(
        Communicator comm,
        MoeBenchWorker.Params p,
        MoeBenchData data,
        MoeBuffer moe,
        KitTensors mem,
        Tensor x,
        Tensor idx,
        Tensor w,
        LongUnaryOperator untilLast) {
    /** One line for a backend without the capability, before any rank changes its buffer. */
    static void check(Communicator comm, int inactive) {
        if (inactive < 1) return;
        if (!comm.has(Capability.MOE_ACTIVE_MASK))
            throw new IllegalArgumentException("--inactive needs a backend with " + Capability.MOE_ACTIVE_MASK
                    + " (MoeBuffer.setActiveRanks); backend " + comm.backend().name() + " has not");
    }

    /**
     * The mode's buffer. With {@code --inactive}, an inactive rank leaves it open at the end, as a rank that left the
     * MoE would: freeing a buffer's symmetric block is collective over every rank, and the survivors, whose mask
     * names an inactive rank, close their side locally (docs/moe.md, "Elastic GPU"); the block stays allocated on
     * every rank alike (the command sizes the heap for both modes' buffers).
     */
    static Held open(Communicator comm, MoeConfig cfg, int inactive) {
        return new Held(comm.moe(cfg), inactive > 0 && comm.rank() >= comm.size() - inactive);
    }

    /** A mode's buffer, closed at the end unless this rank was made inactive ({@link #open}). */
    record Held(MoeBuffer moe, boolean leaveOpen) implements AutoCloseable {
        @Override
        public void close() {
            if (!leaveOpen) moe.close();
        }
    }

    private static ExpertMask survivors(Communicator comm, int inactive) {
        return new ExpertMask(
                comm.size(), IntStream.range(0, comm.size() - inactive).toArray());
    }

    private static String label(String op, int inactive) {
        return op + " (" + inactive + " inactive)";
    }

    private int me() {
        return comm.rank();
    }

    private int inactive() {
        return p.inactive();
    }

    /** Whether this rank stays in the mask (the last {@code inactive} ranks leave it). */
    private boolean active() {
        return me() < comm.size() - inactive();
    }

    /** The data as the reference sees it with the same drops as the kernels. */
    private MoeBenchData ref() {
        return data.masked(comm.size() - inactive(), comm.size());
    }

    /** Normal mode: routed dispatch and combine, BF16. */
    void normal() {
        comm.barrier(); // every rank is past its all-active rounds
        String verified = "skipped";
        MoeLayout layout = null;
        Dispatched first = null;
        if (active()) {
            moe.setActiveRanks(survivors(comm, inactive()));
            layout = moe.layout(idx);
            first = moe.dispatch(x, null, idx, w, layout, 1);
            if (p.verify()) {
                MoeBenchWorker.verifyNormalDispatch(comm, p, ref(), first, mem, false);
                MoeBenchWorker.verifyNormalCombine(comm, p, ref(), moe.combine(first.recvX(), first.handle()), mem);
                verified = "ok";
            } else moe.combine(first.recvX(), first.handle());
            for (int i = 0; i < 100; i++) {
                Dispatched d = moe.dispatch(x, null, idx, w, layout, 1);
                moe.combine(d.recvX(), d.handle());
            }
        }
        MoeLayout routed = layout;
        long[][] times = timed(
                p.iters(), () -> moe.dispatch(x, null, idx, w, routed, 1), d -> moe.combine(d.recvX(), d.handle()));
        if (!active()) return;
        long row = 2L * p.hidden();
        emit(
                "normal",
                first.handle().numRecvTokens() * row,
                times,
                verified,
                MoeBenchWorker.NormalRoutes.of(ref(), me(), comm.size(), p.tokens())
                        .traffic(me(), row));
    }

    /** Low-latency mode: BF16 dispatch (until its receive is done) and combine, weighted by {@code weights}. */
    void lowLatency(float[] weights) {
        comm.barrier();
        String verified = "skipped";
        if (active()) {
            moe.setActiveRanks(survivors(comm, inactive()));
            LowLatencyDispatched d = moe.lowLatencyDispatch(x, idx, false, false);
            if (p.verify()) {
                MoeBenchWorker.verifyLowLatencyDispatch(comm, p, ref(), d, false, mem);
                LowLatencyCombined c = moe.lowLatencyCombine(d.recvX(), idx, w, d.handle(), false);
                MoeBenchWorker.verifyLowLatencyCombine(comm, p, ref(), weights, c.x(), mem);
                verified = "ok";
            } else moe.lowLatencyCombine(d.recvX(), idx, w, d.handle(), false);
            for (int i = 0; i < 500; i++) {
                LowLatencyDispatched di = moe.lowLatencyDispatch(x, idx, false, false);
                moe.lowLatencyCombine(di.recvX(), idx, w, di.handle(), false);
            }
        }
        long[][] times = timed(
                p.llIters(),
                () -> {
                    LowLatencyDispatched d = moe.lowLatencyDispatch(x, idx, false);
                    d.hook().await();
                    return d;
                },
                d -> moe.lowLatencyCombine(d.recvX(), idx, w, d.handle()).hook().await());
        if (!active()) return;
        long row = 2L * p.hidden();
        int[][] pairs = MoeBenchWorker.lowLatencyPairs(ref(), me(), comm.size(), p.experts(), p.llTokens());
        emit(
                "ll",
                java.util.Arrays.stream(pairs[1]).sum() * row,
                times,
                verified,
                MoeBenchWorker.Traffic.of(me(), pairs[0], pairs[1], row));
    }

    /**
     * {@code iters} rounds of dispatch then combine, each after a barrier of every rank (the inactive ranks call
     * nothing between them): {dispatch ns, combine ns until the last rank} per round.
     */
    private <D> long[][] timed(
            int iters, java.util.function.Supplier<D> dispatch, java.util.function.Consumer<D> combine) {
        long[] disp = new long[iters], comb = new long[iters];
        for (int it = 0; it < iters; it++) {
            comm.barrier();
            long t0 = System.nanoTime();
            D d = active() ? dispatch.get() : null;
            disp[it] = System.nanoTime() - t0;
            comm.barrier();
            t0 = System.nanoTime();
            if (active()) combine.accept(d);
            comb[it] = untilLast.applyAsLong(t0);
        }
        return new long[][] {disp, comb};
    }

    /** The mode's two rows ({@code normal} or {@code ll}), without a bound. */
    private void emit(String mode, long bytes, long[][] times, String verified, MoeBenchWorker.Traffic t) {
        long fp = moe.footprintBytes();
        String dispatch = mode.equals("ll") ? "ll dispatch bf16" : "normal dispatch";
        MoeBenchWorker.emit(
                label(dispatch, inactive()), me(), bytes, MoeBenchWorker.median(times[0]), 0, verified, fp, t);
        MoeBenchWorker.emit(
                label(mode + " combine", inactive()),
                me(),
                bytes,
                MoeBenchWorker.median(times[1]),
                0,
                verified,
                fp,
                t.reversed());
    }
}
