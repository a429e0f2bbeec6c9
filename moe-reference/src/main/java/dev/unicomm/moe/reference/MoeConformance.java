package dev.unicomm.moe.reference;

import dev.unicomm.api.Combined;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.Dispatched;
import dev.unicomm.api.ExpertMask;
import dev.unicomm.api.LowLatencyCombined;
import dev.unicomm.api.LowLatencyDispatched;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeLayout;
import dev.unicomm.api.Tensor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;

/**
 * Runs a {@link MoeScenario} on one rank of a live job and compares every result with
 * {@link MoeReference}: data movement bit-exact, sums within one bf16 ulp, summed weights within
 * fp32 rounding. Collective: every rank calls the same check with the same scenario. Failures
 * throw {@link AssertionError} naming the scenario, the rank, the tensor and the first bad element.
 */
public final class MoeConformance {
    private final Communicator comm;
    private final MoeScenario sc;
    private final MoeReference ref;
    private final int rank, hidden, topk;
    private final KitTensors mem;
    private final MaskedRouting masked; // null: a plain buffer
    private final boolean onOpenBuffer; // the mask was set on an open buffer of the whole job (setActiveRanks)

    public MoeConformance(Communicator comm, MoeScenario scenario) {
        this(comm, scenario, null);
    }

    /**
     * Checks a buffer opened with {@code moe(scenario.config(), mask)} (semantics §7.7): the scenario's
     * ids are in the original numbering (over {@code mask.jobSize()} ranks), the reference is a plain
     * buffer over the active ranks' experts fed the ids with the inactive ranks' entries dropped, and
     * every dispatch must report those drops per token. {@code mask} {@code null}: a plain buffer,
     * whose results must report no drops ({@code null}).
     */
    public MoeConformance(Communicator comm, MoeScenario scenario, ExpertMask mask) {
        this(comm, scenario, mask, false);
    }

    /**
     * Checks a buffer of the whole job ({@code moe(scenario.config())}, {@code scenario.ranks()} =
     * {@code mask.jobSize()}) after the active ranks called {@code setActiveRanks(mask)} on it: the
     * reference is the same job with the inactive ranks sending nothing and every entry naming their
     * experts -1 (numbering and layout of the whole job, zeros where inactive), and every dispatch must
     * report those drops per token. Only active ranks run it (an inactive rank calls nothing on the buffer).
     */
    public static MoeConformance onActiveRanks(Communicator comm, MoeScenario scenario, ExpertMask activeRanks) {
        if (activeRanks.jobSize() != scenario.ranks())
            throw new IllegalArgumentException(
                    "mask " + activeRanks + " is not over the scenario's " + scenario.ranks() + " ranks");
        if (!activeRanks.rankActive(comm.rank()))
            throw new IllegalArgumentException(
                    "rank " + comm.rank() + " is inactive in " + activeRanks + ": it takes no part in the check");
        return new MoeConformance(comm, scenario, activeRanks, true);
    }

    private MoeConformance(Communicator comm, MoeScenario scenario, ExpertMask mask, boolean onOpenBuffer) {
        this.comm = comm;
        this.sc = scenario;
        this.onOpenBuffer = onOpenBuffer;
        this.masked =
                mask == null ? null : new MaskedRouting(mask, scenario.config().numExperts());
        this.ref = mask == null || onOpenBuffer
                ? scenario.reference()
                : new MoeReference(
                        scenario.ranks(),
                        masked.compactConfig(scenario.config()).numExperts(),
                        scenario.config().hidden(),
                        scenario.config().numTopk());
        this.rank = comm.rank();
        this.hidden = scenario.config().hidden();
        this.topk = scenario.config().numTopk();
        this.mem = new KitTensors(comm);
        if (comm.size() != scenario.ranks())
            throw new IllegalArgumentException(
                    "scenario is for " + scenario.ranks() + " ranks, the job has " + comm.size());
    }

    // ------------------------------------------------------------------------------- normal mode

    /**
     * Layout, dispatch (BF16 or FP8, alignment 4), combine with {@code y = recvX} in place and with
     * weights, combine of separate data, and a cached-handle dispatch of new data.
     */
    public void checkNormal(MoeBuffer moe, boolean fp8) {
        try (mem) {
            normal(moe, fp8);
        }
    }

    /** The inputs as the reference sees them: with a mask, the inactive ranks' entries dropped. */
    private List<TokenBatch> seenByReference(List<TokenBatch> in) {
        if (masked == null) return in;
        if (!onOpenBuffer) return in.stream().map(masked::compact).toList();
        List<TokenBatch> out = new java.util.ArrayList<>(in.size());
        for (int r = 0; r < in.size(); r++) {
            TokenBatch b = in.get(r);
            out.add(
                    masked.mask().rankActive(r)
                            ? new TokenBatch(
                                    b.tokens(), b.x(), b.scales(), masked.dropInactive(b.topkIdx()), b.topkWeights())
                            : new TokenBatch(
                                    0,
                                    new byte[0],
                                    b.scales() == null ? null : new float[0],
                                    new long[0],
                                    new float[0]));
        }
        return out;
    }

    /** The drops a dispatch of {@code ids} must report: {@code null} without a mask. */
    private void checkDropped(String op, long[] ids, int[] reported) {
        if (masked == null) {
            if (reported != null)
                fail(
                        op + ".droppedPerToken",
                        "must be null for a buffer without a mask, got " + Arrays.toString(reported));
            return;
        }
        if (reported == null) fail(op + ".droppedPerToken", "is null, but this buffer has " + masked.mask());
        same(op + ".droppedPerToken", masked.dropped(ids, topk), reported);
    }

    private void normal(MoeBuffer moe, boolean fp8) {
        List<TokenBatch> given = fp8 ? sc.fp8Inputs(0) : sc.bf16Inputs(0);
        List<TokenBatch> in = seenByReference(given);
        TokenBatch mine = given.get(rank);
        Tensor idx = longs(mine.topkIdx(), mine.tokens(), topk);
        Tensor w = floats(mine.topkWeights(), mine.tokens(), topk);
        Tensor x = bytes(mine.x(), fp8 ? DType.FP8_E4M3 : DType.BF16, mine.tokens(), hidden);
        Tensor s = fp8 ? scales(mine.scales(), mine.tokens(), hidden / 128) : null;

        MoeLayout layout = moe.layout(idx);
        MoeReference.Layout rl = ref.layout(in.get(rank).topkIdx());
        if (masked != null && !onOpenBuffer) rl = masked.expand(rl, mine.tokens());
        same(
                "layout.tokensPerRank",
                rl.tokensPerRank(),
                mem.host(layout.tokensPerRank()).toArray(ValueLayout.JAVA_INT_UNALIGNED));
        same(
                "layout.tokensPerExpert",
                rl.tokensPerExpert(),
                mem.host(layout.tokensPerExpert()).toArray(ValueLayout.JAVA_INT_UNALIGNED));
        byte[] inRank = mem.host(layout.isTokenInRank()).toArray(ValueLayout.JAVA_BYTE);
        for (int i = 0; i < inRank.length; i++)
            if ((inRank[i] != 0) != rl.isTokenInRank()[i]) fail("layout.isTokenInRank", "element " + i);

        Dispatched d = moe.dispatch(x, s, idx, w, layout, 4);
        MoeReference.Dispatch rd = ref.dispatch(rank, in, 4);
        checkDispatch(d, rd, fp8, true);
        checkDropped("dispatch", mine.topkIdx(), d.droppedPerToken());

        // Combine y = recvX in place (BF16 only), with the received weights: sums the token over its ranks.
        List<long[]> allIdx = in.stream().map(TokenBatch::topkIdx).toList();
        MoeReference.Dispatch[] all = new MoeReference.Dispatch[sc.ranks()];
        for (int r = 0; r < sc.ranks(); r++) all[r] = ref.dispatch(r, in, 4);
        if (!fp8) {
            Combined c = moe.combine(d.recvX(), d.handle(), d.recvTopkWeights());
            MoeReference.Combined rc = ref.combine(
                    rank,
                    allIdx,
                    (r, i, dst) -> MoeReference.bytesToBf16(all[r].recvX(), i * 2 * hidden, dst, hidden),
                    (r, i) -> Arrays.copyOfRange(all[r].recvTopkWeights(), i * topk, (i + 1) * topk));
            withinUlp("combine(recvX).x", rc.x(), c.x());
            closeFloats(
                    "combine(recvX).topkWeights",
                    rc.topkWeights(),
                    mem.host(c.topkWeights()).toArray(ValueLayout.JAVA_FLOAT_UNALIGNED));
        }
        // Combine of separate data: y[row] = f(rank, row, channel), no weights.
        short[] y = expertOutput(rank, rd.numRecv());
        Combined c2 =
                moe.combine(bytes(MoeReference.bf16ToBytes(y), DType.BF16, rd.numRecv(), hidden), d.handle(), null);
        MoeReference.Combined rc2 = ref.combine(
                rank,
                allIdx,
                (r, i, dst) -> System.arraycopy(expertOutput(r, all[r].numRecv()), i * hidden, dst, 0, hidden),
                null);
        withinUlp("combine(y).x", rc2.x(), c2.x());
        if (c2.topkWeights() != null) fail("combine(y).topkWeights", "must be null when no weights are passed");

        // Cached-handle dispatch (combine's backward) of new data: same routing.
        List<TokenBatch> given2 = fp8 ? sc.fp8Inputs(1) : sc.bf16Inputs(1);
        List<TokenBatch> in2 = seenByReference(given2);
        TokenBatch mine2 = given2.get(rank);
        Dispatched d2 = moe.dispatch(
                bytes(mine2.x(), fp8 ? DType.FP8_E4M3 : DType.BF16, mine2.tokens(), hidden),
                fp8 ? scales(mine2.scales(), mine2.tokens(), hidden / 128) : null,
                d.handle());
        checkDispatch(d2, ref.dispatch(rank, in2, 4), fp8, false);
        checkDropped("cached dispatch", mine.topkIdx(), d2.droppedPerToken());
    }

    private void checkDispatch(Dispatched d, MoeReference.Dispatch rd, boolean fp8, boolean ids) {
        String op = ids ? "dispatch" : "cached dispatch";
        if (d.recvX().dim(0) != rd.numRecv())
            fail(op + ".recvX", "has " + d.recvX().dim(0) + " rows, expected " + rd.numRecv());
        sameBytes(
                op + ".recvX",
                rd.recvX(),
                mem.host(d.recvX()).toArray(ValueLayout.JAVA_BYTE),
                fp8 ? hidden : 2 * hidden);
        if (fp8)
            same(
                    op + ".recvScales",
                    rd.recvScales(),
                    mem.host(d.recvScales()).toArray(ValueLayout.JAVA_FLOAT_UNALIGNED));
        same(op + ".numRecvTokensPerExpert", rd.numRecvTokensPerExpert(), d.numRecvTokensPerExpert());
        if (ids) {
            long[] gotIdx = mem.host(d.recvTopkIdx()).toArray(ValueLayout.JAVA_LONG_UNALIGNED);
            if (!Arrays.equals(rd.recvTopkIdx(), gotIdx))
                fail(op + ".recvTopkIdx", firstDiff(rd.recvTopkIdx(), gotIdx, topk));
            same(
                    op + ".recvTopkWeights",
                    rd.recvTopkWeights(),
                    mem.host(d.recvTopkWeights()).toArray(ValueLayout.JAVA_FLOAT_UNALIGNED));
        }
    }

    /** Deterministic expert output rows of rank {@code r} (n rows), different from any input. */
    short[] expertOutput(int r, int n) {
        short[] y = new short[n * hidden];
        for (int i = 0; i < y.length; i++) y[i] = Bf16.fromFloat(((i * 37 + r * 101) % 199 - 99) / 16f);
        return y;
    }

    // -------------------------------------------------------------------------- low-latency mode

    /**
     * Low-latency dispatch with the receive hook, compared slot by slot (BF16 rows or FP8 codes and
     * scales, bit-exact); FP8 values also within quantisation error of the input; weighted combine
     * of separate data and (BF16) of recvX in place; then the double-buffer rule (a third dispatch
     * makes the first handle stale).
     */
    public void checkLowLatency(MoeBuffer moe, boolean fp8) {
        try (mem) {
            lowLatency(moe, fp8);
        }
    }

    private void lowLatency(MoeBuffer moe, boolean fp8) {
        int maxT = sc.config().maxTokensPerRank(), slots = sc.ranks() * maxT, local = ref.numLocalExperts();
        List<TokenBatch> given = sc.bf16Inputs(0);
        List<TokenBatch> in = seenByReference(given);
        List<long[]> allIdx = in.stream().map(TokenBatch::topkIdx).toList();
        TokenBatch mine = given.get(rank);
        Tensor x = bytes(mine.x(), DType.BF16, mine.tokens(), hidden);
        Tensor idx = longs(mine.topkIdx(), mine.tokens(), topk);
        Tensor w = floats(mine.topkWeights(), mine.tokens(), topk);

        LowLatencyDispatched d = moe.lowLatencyDispatch(x, idx, fp8);
        d.hook().await();
        d.hook().await(); // a second call does nothing
        checkDropped("lowLatencyDispatch", mine.topkIdx(), d.droppedPerToken());
        MoeReference.LowLatencyDispatch rd = ref.lowLatencyDispatch(rank, in, maxT, fp8);
        same("lowLatencyDispatch.recvCount", rd.recvCount(), d.recvCount());
        int rowBytes = fp8 ? hidden : 2 * hidden, cols = hidden / 128;
        MemorySegment gx = mem.host(d.recvX());
        MemorySegment gScales = fp8 ? mem.host(d.recvScales()) : null;
        for (int e = 0; e < local; e++) {
            for (int i = 0; i < rd.recvCount()[e]; i++) {
                long slot = (long) e * slots + i;
                byte[] got = gx.asSlice(slot * rowBytes, rowBytes).toArray(ValueLayout.JAVA_BYTE);
                byte[] exp = Arrays.copyOfRange(rd.recvX(), (int) slot * rowBytes, (int) (slot + 1) * rowBytes);
                if (!Arrays.equals(exp, got))
                    fail(
                            "lowLatencyDispatch.recvX",
                            "expert " + e + " slot " + i + " (from rank " + rd.srcRank()[(int) slot] + " token "
                                    + rd.srcToken()[(int) slot] + "): " + firstDiff(exp, got));
                if (fp8) {
                    float[] gs = gScales.asSlice(slot * cols * 4, cols * 4L).toArray(ValueLayout.JAVA_FLOAT_UNALIGNED);
                    float[] es = Arrays.copyOfRange(rd.recvScales(), (int) slot * cols, (int) (slot + 1) * cols);
                    if (!Arrays.equals(es, gs)) fail("lowLatencyDispatch.recvScales", "expert " + e + " slot " + i);
                    short[] orig = new short[hidden];
                    MoeReference.bytesToBf16(
                            in.get(rd.srcRank()[(int) slot]).x(), rd.srcToken()[(int) slot] * 2 * hidden, orig, hidden);
                    for (int c = 0; c < hidden; c++) {
                        float deq = Fp8E4m3.dequantise(got, 0, gs, 0, c);
                        if (!Fp8E4m3.withinQuantisationError(Bf16.toFloat(orig[c]), deq, gs[c / 128]))
                            fail(
                                    "lowLatencyDispatch.recvX (fp8)",
                                    "expert " + e + " slot " + i + " channel " + c + ": " + deq
                                            + " is not within e4m3 rounding of " + Bf16.toFloat(orig[c]));
                    }
                }
            }
        }

        // Weighted combine of separate expert outputs y[e][slot] = g(rank, e, slot, channel).
        Tensor yHost = mem.hostTensor(DType.BF16, local, slots, hidden);
        MemorySegment ys = yHost.segment();
        short[] row = new short[hidden];
        for (int e = 0; e < local; e++)
            for (int i = 0; i < d.recvCount()[e]; i++) {
                slotOutput(rank, e, i, row);
                MemorySegment.copy(
                        row, 0, ys, ValueLayout.JAVA_SHORT_UNALIGNED, ((long) e * slots + i) * 2 * hidden, hidden);
            }
        Tensor y = mem.place(yHost);
        LowLatencyCombined c = moe.lowLatencyCombine(y, idx, w, d.handle());
        c.hook().await();
        short[] rc = ref.lowLatencyCombine(
                rank, allIdx, mine.topkWeights(), maxT, (r, e, i, dst) -> slotOutput(r, e, i, dst));
        withinUlp("lowLatencyCombine(y)", rc, c.x());

        if (!fp8) { // combine recvX in place: each token's weighted sum of its own copies
            LowLatencyDispatched d2 = moe.lowLatencyDispatch(x, idx, false);
            d2.hook().await();
            LowLatencyCombined c2 = moe.lowLatencyCombine(d2.recvX(), idx, w, d2.handle());
            c2.hook().await();
            MoeReference.LowLatencyDispatch[] all = new MoeReference.LowLatencyDispatch[sc.ranks()];
            for (int r = 0; r < sc.ranks(); r++) all[r] = ref.lowLatencyDispatch(r, in, maxT, false);
            short[] rc2 = ref.lowLatencyCombine(
                    rank,
                    allIdx,
                    mine.topkWeights(),
                    maxT,
                    (r, e, i, dst) ->
                            MoeReference.bytesToBf16(all[r].recvX(), (e * slots + i) * 2 * hidden, dst, hidden));
            withinUlp("lowLatencyCombine(recvX)", rc2, c2.x());
        }

        // Double buffer: two more dispatches make the first result stale.
        LowLatencyDispatched a = moe.lowLatencyDispatch(x, idx, fp8);
        LowLatencyDispatched b = moe.lowLatencyDispatch(x, idx, fp8);
        b.hook().await();
        LowLatencyDispatched third = moe.lowLatencyDispatch(x, idx, fp8);
        try {
            moe.lowLatencyCombine(y, idx, w, a.handle());
            fail("double buffer", "combine with the handle of the third-newest dispatch did not throw");
        } catch (IllegalStateException expected) {
            // the oldest of three is stale
        }
        third.hook().await();
        same("lowLatencyDispatch(again).recvCount", rd.recvCount(), third.recvCount());
        LowLatencyCombined c3 = moe.lowLatencyCombine(y, idx, w, third.handle());
        withinUlp("lowLatencyCombine(y) after reuse", rc, waitFor(c3));
    }

    private static Tensor waitFor(LowLatencyCombined c) {
        c.hook().await();
        return c.x();
    }

    /** Deterministic low-latency expert output of rank r, expert e, slot i. */
    void slotOutput(int r, int e, int i, short[] dst) {
        for (int c = 0; c < hidden; c++) dst[c] = Bf16.fromFloat(((c * 13 + e * 7 + i * 3 + r * 29) % 101 - 50) / 8f);
    }

    // ------------------------------------------------------------------------------- comparison

    private void fail(String what, String detail) {
        throw new AssertionError(sc + ", rank " + rank + ": " + what + " differs from the reference: " + detail);
    }

    private void same(String what, int[] expected, int[] actual) {
        if (!Arrays.equals(expected, actual))
            fail(what, "expected " + Arrays.toString(expected) + ", got " + Arrays.toString(actual));
    }

    private void same(String what, float[] expected, float[] actual) {
        if (!Arrays.equals(expected, actual)) fail(what, firstDiff(expected, actual));
    }

    private void sameBytes(String what, byte[] expected, byte[] actual, int rowBytes) {
        if (Arrays.equals(expected, actual)) return;
        int i = Arrays.mismatch(expected, actual);
        fail(
                what,
                "first difference in row " + i / rowBytes + " at byte " + i % rowBytes + " (lengths " + expected.length
                        + " vs " + actual.length + ")");
    }

    /** BF16 results within one ulp of the fp32-accumulated reference. */
    private void withinUlp(String what, short[] expected, Tensor actual) {
        short[] got = new short[(int) actual.numel()];
        MemorySegment.copy(mem.host(actual), ValueLayout.JAVA_SHORT_UNALIGNED, 0, got, 0, got.length);
        if (got.length != expected.length) fail(what, "has " + got.length + " elements, expected " + expected.length);
        for (int i = 0; i < got.length; i++) {
            if (Bf16.ulpDistance(expected[i], got[i]) > 1)
                fail(
                        what,
                        "row " + i / hidden + " channel " + i % hidden + ": expected " + Bf16.toFloat(expected[i])
                                + ", got " + Bf16.toFloat(got[i]) + " (more than 1 bf16 ulp apart)");
        }
    }

    private void closeFloats(String what, float[] expected, float[] actual) {
        if (expected.length != actual.length) fail(what, "length " + actual.length + ", expected " + expected.length);
        for (int i = 0; i < expected.length; i++) {
            if (Math.abs(expected[i] - actual[i]) > 1e-6f * Math.max(1f, Math.abs(expected[i])))
                fail(what, "element " + i + ": expected " + expected[i] + ", got " + actual[i]);
        }
    }

    private static String firstDiff(float[] e, float[] a) {
        int i = Arrays.mismatch(e, a);
        return i < 0
                ? "equal"
                : i >= Math.min(e.length, a.length)
                        ? "lengths " + e.length + " vs " + a.length
                        : "element " + i + ": expected " + e[i] + ", got " + a[i];
    }

    private static String firstDiff(long[] e, long[] a, int k) {
        int i = Arrays.mismatch(e, a);
        return i < 0
                ? "equal"
                : i >= Math.min(e.length, a.length)
                        ? "lengths " + e.length + " vs " + a.length
                        : "[" + i / k + ", " + i % k + "]: expected " + e[i] + ", got " + a[i];
    }

    private static String firstDiff(byte[] e, byte[] a) {
        int i = Arrays.mismatch(e, a);
        return i < 0 ? "equal" : "byte " + i + ": expected " + e[i] + ", got " + a[i];
    }

    // ------------------------------------------------------------------------------ tensor helpers

    /** An activation (x, scales, expert output): device memory on device backends. */
    Tensor bytes(byte[] data, DType dtype, long... shape) {
        return mem.activation(data, dtype, shape);
    }

    /** FP8 scales travel with x: on the device when x is. */
    Tensor scales(float[] data, long... shape) {
        return mem.place(floats(data, shape));
    }

    Tensor longs(long[] data, long... shape) {
        Tensor t = mem.hostTensor(DType.INT64, shape);
        MemorySegment.copy(data, 0, t.segment(), ValueLayout.JAVA_LONG_UNALIGNED, 0, data.length);
        return t;
    }

    Tensor floats(float[] data, long... shape) {
        Tensor t = mem.hostTensor(DType.FP32, shape);
        MemorySegment.copy(data, 0, t.segment(), ValueLayout.JAVA_FLOAT_UNALIGNED, 0, data.length);
        return t;
    }
}
