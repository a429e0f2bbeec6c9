package dev.unicomm.internal.checked;

import static dev.unicomm.internal.checked.CheckedMoeTest.expect;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import dev.unicomm.api.Combined;
import dev.unicomm.api.DType;
import dev.unicomm.api.Dispatched;
import dev.unicomm.api.ExpertMask;
import dev.unicomm.api.LowLatencyCombined;
import dev.unicomm.api.LowLatencyDispatched;
import dev.unicomm.api.Memory;
import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.MoeHandle;
import dev.unicomm.api.MoeLayout;
import dev.unicomm.api.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An expert mask (semantics §7.7) in the validating layer: users number experts over the original job,
 * the implementation underneath sees the compact numbering with the inactive ranks' entries as -1, and
 * the drops come back per token.
 */
class MaskedMoeTest {
    // Original job: 4 ranks x 2 experts; job rank 2 (experts 4, 5) is inactive; 3 ranks serve.
    static final int JOB = 4, LOCAL = 2, EXPERTS = JOB * LOCAL, ACTIVE = 3, HIDDEN = 256, TOKENS = 4, TOPK = 2;
    static final ExpertMask MASK = new ExpertMask(JOB, new int[] {0, 1, 3});
    final Arena arena = Arena.ofAuto();

    /** Records the ids it is given; computes real layouts of the compact numbering. */
    final class Capture implements MoeBuffer {
        final MoeConfig config;
        final List<long[]> ids = new ArrayList<>();
        final List<Tensor> tensors = new ArrayList<>();
        MoeLayout lastLayout;

        Capture(MoeConfig config) {
            this.config = config;
        }

        void saw(Tensor idx) {
            tensors.add(idx);
            ids.add(idx.segment().toArray(ValueLayout.JAVA_LONG_UNALIGNED));
        }

        MoeHandle handle(MoeConfig.Mode mode, int t) {
            return new MoeHandle() {
                public MoeConfig.Mode mode() {
                    return mode;
                }

                public int numTokens() {
                    return t;
                }

                public int numRecvTokens() {
                    return 1;
                }
            };
        }

        @Override
        public MoeConfig config() {
            return config;
        }

        @Override
        public long footprintBytes() {
            return 1;
        }

        @Override
        public MoeLayout layout(Tensor idx) {
            int ranks = ACTIVE, t = (int) idx.dim(0);
            long[] v = idx.segment().toArray(ValueLayout.JAVA_LONG_UNALIGNED);
            Tensor pr = Tensor.allocate(arena, DType.INT32, ranks),
                    pe = Tensor.allocate(arena, DType.INT32, config.numExperts());
            Tensor ir = Tensor.allocate(arena, DType.BOOL, t, ranks);
            for (int i = 0; i < t; i++) {
                boolean[] hit = new boolean[ranks];
                for (int k = 0; k < TOPK; k++) {
                    long e = v[i * TOPK + k];
                    if (e < 0) continue;
                    pe.segment()
                            .setAtIndex(ValueLayout.JAVA_INT, e, pe.segment().getAtIndex(ValueLayout.JAVA_INT, e) + 1);
                    hit[(int) (e / LOCAL)] = true;
                }
                for (int r = 0; r < ranks; r++)
                    if (hit[r]) {
                        pr.segment()
                                .setAtIndex(
                                        ValueLayout.JAVA_INT, r, pr.segment().getAtIndex(ValueLayout.JAVA_INT, r) + 1);
                        ir.segment().set(ValueLayout.JAVA_BYTE, (long) i * ranks + r, (byte) 1);
                    }
            }
            return new MoeLayout(pr, pe, ir);
        }

        @Override
        public Dispatched dispatch(Tensor x, Tensor s, Tensor i, Tensor w, MoeLayout l, int a) {
            saw(i);
            lastLayout = l;
            return new Dispatched(x, s, i, w, new int[LOCAL], handle(MoeConfig.Mode.NORMAL, (int) x.dim(0)));
        }

        @Override
        public Dispatched dispatch(Tensor x, Tensor s, MoeHandle h) {
            return new Dispatched(x, s, null, null, new int[LOCAL], h);
        }

        @Override
        public Combined combine(Tensor y, MoeHandle h, Tensor w) {
            return new Combined(y, w);
        }

        @Override
        public LowLatencyDispatched lowLatencyDispatch(Tensor x, Tensor i, boolean fp8) {
            saw(i);
            return new LowLatencyDispatched(
                    x, null, new int[LOCAL], handle(MoeConfig.Mode.LOW_LATENCY, (int) x.dim(0)), () -> {});
        }

        @Override
        public LowLatencyCombined lowLatencyCombine(Tensor y, Tensor i, Tensor w, MoeHandle h) {
            saw(i);
            return new LowLatencyCombined(y, () -> {});
        }

        @Override
        public void close() {}
    }

    Tensor topk(long... values) {
        Tensor t = Tensor.allocate(arena, DType.INT64, values.length / TOPK, TOPK);
        for (int i = 0; i < values.length; i++) t.segment().setAtIndex(ValueLayout.JAVA_LONG, i, values[i]);
        return t;
    }

    Tensor bf16(long... shape) {
        return Tensor.allocate(arena, DType.BF16, shape);
    }

    static int[] ints(Tensor t) {
        return t.segment().toArray(ValueLayout.JAVA_INT_UNALIGNED);
    }

    CheckedMoe masked(MoeConfig.Mode mode, ExpertMask mask) {
        MoeConfig original = new MoeConfig(mode, EXPERTS, HIDDEN, TOKENS, TOPK, false);
        MoeConfig compact = MaskedExperts.compactConfig(original, mask);
        return CheckedMoe.masked(new Capture(compact), mask.activeCount(), original, mask);
    }

    // Experts 4 and 5 live on the inactive job rank 2; 6 and 7 on job rank 3, served as compact rank 2 (ids 4, 5).
    final long[] original = {0, 5, 4, 7, 6, -1, 2, 3};
    final long[] compact = {0, -1, -1, 5, 4, -1, 2, 3};
    final int[] dropped = {1, 1, 0, 0};

    @Test
    void normalDispatchTranslatesIdsAndReportsDropsPerToken() {
        CheckedMoe moe = masked(MoeConfig.Mode.NORMAL, MASK);
        Capture raw = (Capture) moe.unwrap();
        assertEquals(EXPERTS, moe.config().numExperts());
        assertEquals(LOCAL * ACTIVE, raw.config().numExperts());
        Tensor idx = topk(original);
        MoeLayout layout = moe.layout(idx);
        // Original numbering: 4 job ranks and 8 experts; nothing goes to job rank 2 or its experts.
        assertArrayEquals(new int[] {1, 1, 0, 2}, ints(layout.tokensPerRank()));
        assertArrayEquals(new int[] {1, 0, 1, 1, 0, 0, 1, 1}, ints(layout.tokensPerExpert()));
        assertArrayEquals(
                new byte[] {1, 0, 0, 0, /**/ 0, 0, 0, 1, /**/ 0, 0, 0, 1, /**/ 0, 1, 0, 0},
                layout.isTokenInRank().segment().toArray(ValueLayout.JAVA_BYTE));

        Dispatched d = moe.dispatch(bf16(4, HIDDEN), null, idx, null, layout, 1);
        assertArrayEquals(compact, raw.ids.getLast());
        assertArrayEquals(dropped, d.droppedPerToken());
        assertArrayEquals(
                new int[] {1, 1, 2},
                ints(raw.lastLayout.tokensPerRank()),
                "the implementation gets the compact layout");
        assertArrayEquals(
                original, idx.segment().toArray(ValueLayout.JAVA_LONG_UNALIGNED), "the caller's tensor is not changed");
        Dispatched cached = moe.dispatch(bf16(4, HIDDEN), null, d.handle());
        assertArrayEquals(dropped, cached.droppedPerToken(), "a cached-handle dispatch reports its handle's drops");
        moe.combine(bf16(1, HIDDEN), cached.handle());
    }

    @Test
    void idsAreCheckedInTheOriginalNumbering() {
        CheckedMoe moe = masked(MoeConfig.Mode.NORMAL, MASK);
        // 7 is beyond the 6 experts underneath but a valid original id; 8 is not.
        moe.layout(topk(7, 6));
        expect(
                "topkIdx[0, 1] = 8 is not an expert: allowed are -1 (unused slot) and 0..7",
                IllegalArgumentException.class,
                () -> moe.layout(topk(7, 8)));
        // A layout that sends to the inactive rank was not made by this buffer.
        Tensor idx = topk(original);
        MoeLayout good = moe.layout(idx);
        Tensor perRank = Tensor.allocate(arena, DType.INT32, JOB);
        perRank.segment().copyFrom(good.tokensPerRank().segment());
        perRank.segment().setAtIndex(ValueLayout.JAVA_INT, 2, 2);
        expect(
                "sends 2 tokens to inactive job rank 2",
                IllegalArgumentException.class,
                () -> moe.dispatch(
                        bf16(4, HIDDEN),
                        null,
                        idx,
                        null,
                        new MoeLayout(perRank, good.tokensPerExpert(), good.isTokenInRank()),
                        1));
        expect(
                "layout.tokensPerRank must have shape [4]",
                IllegalArgumentException.class,
                () -> moe.dispatch(
                        bf16(4, HIDDEN),
                        null,
                        idx,
                        null,
                        new MoeLayout(
                                Tensor.allocate(arena, DType.INT32, ACTIVE),
                                good.tokensPerExpert(),
                                good.isTokenInRank()),
                        1));
        assertEquals(0, ((Capture) moe.unwrap()).ids.size());
        expect(
                "the mask leaves 2 experts on 1 active ranks, fewer than numTopk = 3",
                IllegalArgumentException.class,
                () -> MaskedExperts.compactConfig(
                        new MoeConfig(MoeConfig.Mode.NORMAL, 8, 128, 4, 3, false), new ExpertMask(4, new int[] {1})));
    }

    @Test
    void lowLatencyDispatchAndCombineTranslateTheSameWay() {
        CheckedMoe moe = masked(MoeConfig.Mode.LOW_LATENCY, MASK);
        Capture raw = (Capture) moe.unwrap();
        Tensor idx = topk(original);
        LowLatencyDispatched d = moe.lowLatencyDispatch(bf16(4, HIDDEN), idx, false);
        assertArrayEquals(compact, raw.ids.getLast());
        assertArrayEquals(dropped, d.droppedPerToken());
        moe.lowLatencyCombine(
                bf16(LOCAL, (long) ACTIVE * TOKENS, HIDDEN),
                idx,
                Tensor.allocate(arena, DType.FP32, 4, TOPK),
                d.handle());
        assertArrayEquals(
                compact, raw.ids.getLast(), "combine ignores the dropped entries' weights: they are -1 underneath");
    }

    @Test
    void anAllActiveMaskPassesTensorsThrough() {
        ExpertMask all = ExpertMask.all(JOB);
        MoeConfig cfg = new MoeConfig(MoeConfig.Mode.LOW_LATENCY, EXPERTS, HIDDEN, TOKENS, TOPK, false);
        assertEquals(cfg, MaskedExperts.compactConfig(cfg, all));
        CheckedMoe moe = CheckedMoe.masked(new Capture(cfg), JOB, cfg, all);
        Capture raw = (Capture) moe.unwrap();
        Tensor idx = topk(original);
        LowLatencyDispatched d = moe.lowLatencyDispatch(bf16(4, HIDDEN), idx, false);
        assertSame(idx, raw.tensors.getLast());
        assertArrayEquals(new int[4], d.droppedPerToken());
        // Without a mask there is no report.
        CheckedMoe plain = new CheckedMoe(new Capture(cfg), JOB);
        assertNull(plain.lowLatencyDispatch(bf16(4, HIDDEN), idx, false).droppedPerToken());
    }

    @Test
    void deviceTensorsAreRejectedWhereTheMaskDrops() {
        CheckedMoe moe = masked(MoeConfig.Mode.LOW_LATENCY, MASK);
        Tensor deviceIdx = Tensor.of(Memory.device(0x10000, 4L * TOPK * 8, MemoryKind.cuda(0)), DType.INT64, 4, TOPK);
        expect(
                "no device-side translation yet",
                UnsupportedOperationException.class,
                () -> moe.lowLatencyDispatch(bf16(4, HIDDEN), deviceIdx, false));
        assertEquals(0, ((Capture) moe.unwrap()).ids.size());
    }
}
