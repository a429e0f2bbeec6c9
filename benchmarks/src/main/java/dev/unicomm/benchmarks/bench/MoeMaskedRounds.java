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
final class MoeMaskedRounds {
    private MoeMaskedRounds() {}

    /** One line for a backend without the capability, before any rank changes its buffer. */
    static void check(Communicator comm, int inactive) {
        if (inactive < 1) return;
        if (!comm.has(Capability.MOE_ACTIVE_MASK))
            throw new IllegalArgumentException("--inactive needs a backend with " + Capability.MOE_ACTIVE_MASK
                    + " (MoeBuffer.setActiveRanks); backend " + comm.backend().name() + " has not");
        if (inactive >= comm.size())
            throw new IllegalArgumentException(
                    "--inactive " + inactive + " leaves no active rank among " + comm.size());
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

    /** Normal mode: routed dispatch and combine, BF16. {@code untilLast}: the combine's timing (MoeCopyBound). */
    static void normal(
            Communicator comm,
            MoeBenchWorker.Params p,
            MoeBenchData data,
            MoeBuffer moe,
            KitTensors mem,
            Tensor x,
            Tensor idx,
            Tensor w,
            LongUnaryOperator untilLast) {
        int me = comm.rank(), n = p.inactive(), h = p.hidden();
        boolean active = me < comm.size() - n;
        MoeBenchData ref = data.masked(comm.size() - n, comm.size());
        comm.barrier(); // every rank is past its all-active rounds
        String verified = "skipped";
        MoeLayout layout = null;
        Dispatched first = null;
        if (active) {
            moe.setActiveRanks(survivors(comm, n));
            layout = moe.layout(idx);
            first = moe.dispatch(x, null, idx, w, layout, 1);
            if (p.verify()) {
                MoeBenchWorker.verifyNormalDispatch(comm, p, ref, first, mem, false);
                MoeBenchWorker.verifyNormalCombine(comm, p, ref, moe.combine(first.recvX(), first.handle()), mem);
                verified = "ok";
            } else moe.combine(first.recvX(), first.handle());
            for (int i = 0; i < 100; i++) {
                Dispatched d = moe.dispatch(x, null, idx, w, layout, 1);
                moe.combine(d.recvX(), d.handle());
            }
        }
        long[] disp = new long[p.iters()], comb = new long[p.iters()];
        for (int it = 0; it < p.iters(); it++) {
            comm.barrier();
            long t0 = System.nanoTime();
            Dispatched d = active ? moe.dispatch(x, null, idx, w, layout, 1) : null;
            disp[it] = System.nanoTime() - t0;
            comm.barrier();
            t0 = System.nanoTime();
            if (active) moe.combine(d.recvX(), d.handle());
            comb[it] = untilLast.applyAsLong(t0);
        }
        if (!active) return;
        long rows = first.handle().numRecvTokens(), bytes = rows * 2L * h, fp = moe.footprintBytes();
        MoeBenchWorker.Traffic t =
                MoeBenchWorker.NormalRoutes.of(ref, me, comm.size(), p.tokens()).traffic(me, 2L * h);
        MoeBenchWorker.emit(label("normal dispatch", n), me, bytes, MoeBenchWorker.median(disp), 0, verified, fp, t);
        MoeBenchWorker.emit(
                label("normal combine", n), me, bytes, MoeBenchWorker.median(comb), 0, verified, fp, t.reversed());
    }

    /** Low-latency mode: BF16 dispatch (until its receive is done) and combine. */
    static void lowLatency(
            Communicator comm,
            MoeBenchWorker.Params p,
            MoeBenchData data,
            MoeBuffer moe,
            KitTensors mem,
            Tensor x,
            Tensor idx,
            Tensor w,
            float[] weights,
            LongUnaryOperator untilLast) {
        int me = comm.rank(), n = p.inactive(), h = p.hidden();
        boolean active = me < comm.size() - n;
        MoeBenchData ref = data.masked(comm.size() - n, comm.size());
        comm.barrier();
        String verified = "skipped";
        if (active) {
            moe.setActiveRanks(survivors(comm, n));
            LowLatencyDispatched d = moe.lowLatencyDispatch(x, idx, false, false);
            if (p.verify()) {
                MoeBenchWorker.verifyLowLatencyDispatch(comm, p, ref, d, false, mem);
                LowLatencyCombined c = moe.lowLatencyCombine(d.recvX(), idx, w, d.handle(), false);
                MoeBenchWorker.verifyLowLatencyCombine(comm, p, ref, weights, c.x(), mem);
                verified = "ok";
            } else moe.lowLatencyCombine(d.recvX(), idx, w, d.handle(), false);
            for (int i = 0; i < 500; i++) {
                LowLatencyDispatched di = moe.lowLatencyDispatch(x, idx, false, false);
                moe.lowLatencyCombine(di.recvX(), idx, w, di.handle(), false);
            }
        }
        long[] disp = new long[p.llIters()], comb = new long[p.llIters()];
        for (int it = 0; it < p.llIters(); it++) {
            comm.barrier();
            long t0 = System.nanoTime();
            LowLatencyDispatched d = null;
            if (active) {
                d = moe.lowLatencyDispatch(x, idx, false);
                d.hook().await();
            }
            disp[it] = System.nanoTime() - t0;
            comm.barrier();
            t0 = System.nanoTime();
            if (active)
                moe.lowLatencyCombine(d.recvX(), idx, w, d.handle()).hook().await();
            comb[it] = untilLast.applyAsLong(t0);
        }
        if (!active) return;
        int[][] pairs = MoeBenchWorker.lowLatencyPairs(ref, me, comm.size(), p.experts(), p.llTokens());
        MoeBenchWorker.Traffic t = MoeBenchWorker.Traffic.of(me, pairs[0], pairs[1], 2L * h);
        long bytes = java.util.Arrays.stream(pairs[1]).sum() * 2L * h;
        long fp = moe.footprintBytes();
        MoeBenchWorker.emit(label("ll dispatch bf16", n), me, bytes, MoeBenchWorker.median(disp), 0, verified, fp, t);
        MoeBenchWorker.emit(
                label("ll combine", n), me, bytes, MoeBenchWorker.median(comb), 0, verified, fp, t.reversed());
    }
}
