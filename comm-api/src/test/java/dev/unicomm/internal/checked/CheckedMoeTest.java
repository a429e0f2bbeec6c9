package dev.unicomm.internal.checked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.Combined;
import dev.unicomm.api.DType;
import dev.unicomm.api.Dispatched;
import dev.unicomm.api.LowLatencyCombined;
import dev.unicomm.api.LowLatencyDispatched;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.MoeHandle;
import dev.unicomm.api.MoeLayout;
import dev.unicomm.api.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** The validating MoE layer rejects bad arguments with messages naming them, before the implementation sees them. */
class CheckedMoeTest {
    static final int RANKS = 2, EXPERTS = 8, HIDDEN = 256, TOKENS = 4, TOPK = 2;
    final Arena arena = Arena.ofAuto();

    /** An implementation that records how often it was reached and returns well-formed results. */
    class Recording implements MoeBuffer {
        final MoeConfig config;
        int calls;

        Recording(MoeConfig config) {
            this.config = config;
        }

        MoeHandle handle(MoeConfig.Mode mode, int t, int n) {
            return new MoeHandle() {
                public MoeConfig.Mode mode() {
                    return mode;
                }

                public int numTokens() {
                    return t;
                }

                public int numRecvTokens() {
                    return n;
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
        public MoeLayout layout(Tensor topkIdx) {
            calls++;
            return new MoeLayout(
                    Tensor.allocate(arena, DType.INT32, RANKS),
                    Tensor.allocate(arena, DType.INT32, EXPERTS),
                    Tensor.allocate(arena, DType.BOOL, topkIdx.dim(0), RANKS));
        }

        @Override
        public Dispatched dispatch(Tensor x, Tensor s, Tensor i, Tensor w, MoeLayout l, int a) {
            calls++;
            return new Dispatched(
                    x, s, i, w, new int[EXPERTS / RANKS], handle(MoeConfig.Mode.NORMAL, (int) x.dim(0), 3));
        }

        @Override
        public Dispatched dispatch(Tensor x, Tensor s, MoeHandle h) {
            calls++;
            return new Dispatched(x, s, null, null, new int[EXPERTS / RANKS], h);
        }

        @Override
        public Combined combine(Tensor y, MoeHandle h, Tensor w) {
            calls++;
            return new Combined(y, w);
        }

        @Override
        public LowLatencyDispatched lowLatencyDispatch(Tensor x, Tensor i, boolean fp8) {
            calls++;
            return new LowLatencyDispatched(
                    x,
                    null,
                    new int[EXPERTS / RANKS],
                    handle(MoeConfig.Mode.LOW_LATENCY, (int) x.dim(0), -1),
                    () -> {});
        }

        @Override
        public LowLatencyCombined lowLatencyCombine(Tensor y, Tensor i, Tensor w, MoeHandle h) {
            calls++;
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

    CheckedMoe normal() {
        return new CheckedMoe(
                new Recording(new MoeConfig(MoeConfig.Mode.NORMAL, EXPERTS, HIDDEN, TOKENS, TOPK, true)), RANKS);
    }

    CheckedMoe lowLatency() {
        return new CheckedMoe(
                new Recording(new MoeConfig(MoeConfig.Mode.LOW_LATENCY, EXPERTS, HIDDEN, TOKENS, TOPK, false)), RANKS);
    }

    static void expect(String fragment, Class<? extends Throwable> type, org.junit.jupiter.api.function.Executable e) {
        Throwable t = assertThrows(type, e);
        assertTrue(
                t.getMessage().contains(fragment),
                () -> "message '" + t.getMessage() + "' should contain '" + fragment + "'");
    }

    @Test
    void topkOutOfRangeIsNamed() {
        CheckedMoe moe = normal();
        expect("topkIdx[1, 0] = 8", IllegalArgumentException.class, () -> moe.layout(topk(0, 1, 8, 2)));
        expect("topkIdx[0, 1] = -2", IllegalArgumentException.class, () -> moe.layout(topk(0, -2)));
        expect("names expert 3 twice", IllegalArgumentException.class, () -> moe.layout(topk(3, 3)));
        assertEquals(0, ((Recording) moe.unwrap()).calls);
        moe.layout(topk(-1, -1, 7, 0));
        assertEquals(1, ((Recording) moe.unwrap()).calls);
    }

    @Test
    void shapesDtypesAndTokenCountsAreChecked() {
        CheckedMoe moe = normal();
        Tensor idx = topk(0, 5, 1, -1);
        MoeLayout layout = new MoeLayout(
                intTensor(2, 1),
                Tensor.allocate(arena, DType.INT32, EXPERTS),
                Tensor.allocate(arena, DType.BOOL, 2, RANKS));
        expect(
                "x must have shape [2, 256]",
                IllegalArgumentException.class,
                () -> moe.dispatch(bf16(2, 128), null, idx, null, layout, 1));
        expect(
                "x must be BF16",
                IllegalArgumentException.class,
                () -> moe.dispatch(Tensor.allocate(arena, DType.FP32, 2, HIDDEN), null, idx, null, layout, 1));
        expect(
                "scales must not be null: expected FP32[2, 2]",
                IllegalArgumentException.class,
                () -> moe.dispatch(Tensor.allocate(arena, DType.FP8_E4M3, 2, HIDDEN), null, idx, null, layout, 1));
        expect(
                "x has 5 tokens but the buffer was sized for at most 4",
                IllegalArgumentException.class,
                () -> moe.dispatch(bf16(5, HIDDEN), null, idx, null, layout, 1));
        expect("topkIdx has 5 tokens", IllegalArgumentException.class, () -> moe.layout(topk(new long[10])));
        expect(
                "layout was not computed from this topkIdx",
                IllegalArgumentException.class,
                () -> moe.dispatch(
                        bf16(2, HIDDEN),
                        null,
                        idx,
                        null,
                        new MoeLayout(intTensor(1, 1), layout.tokensPerExpert(), layout.isTokenInRank()),
                        1));
        expect(
                "expertAlignment must be >= 1",
                IllegalArgumentException.class,
                () -> moe.dispatch(bf16(2, HIDDEN), null, idx, null, layout, 0));
        Dispatched d = moe.dispatch(bf16(2, HIDDEN), null, idx, null, layout, 1);
        expect(
                "y must have shape [3, 256]",
                IllegalArgumentException.class,
                () -> moe.combine(bf16(2, HIDDEN), d.handle()));
        moe.combine(bf16(3, HIDDEN), d.handle());
        expect(
                "this buffer was configured for NORMAL",
                IllegalStateException.class,
                () -> moe.lowLatencyDispatch(bf16(2, HIDDEN), idx, false));
    }

    @Test
    void handlesFromOtherBuffersAndStaleHandlesAreRejected() {
        CheckedMoe a = lowLatency(), b = lowLatency();
        Tensor idx = topk(0, 5, 1, -1), x = bf16(2, HIDDEN), y = bf16(EXPERTS / RANKS, RANKS * TOKENS, HIDDEN);
        Tensor w = Tensor.allocate(arena, DType.FP32, 2, TOPK);
        LowLatencyDispatched first = a.lowLatencyDispatch(x, idx, false);
        expect(
                "handle was made by another MoE buffer",
                IllegalArgumentException.class,
                () -> b.lowLatencyCombine(y, idx, w, first.handle()));
        expect(
                "useFp8: this buffer was configured without FP8",
                IllegalArgumentException.class,
                () -> a.lowLatencyDispatch(x, idx, true));
        a.lowLatencyDispatch(x, idx, false);
        a.lowLatencyCombine(y, idx, w, first.handle()); // two alive: still fine
        a.lowLatencyDispatch(x, idx, false);
        expect("handle is stale", IllegalStateException.class, () -> a.lowLatencyCombine(y, idx, w, first.handle()));
        expect("hook is stale", IllegalStateException.class, () -> first.hook().await());
        expect(
                "names expert 1 twice",
                IllegalArgumentException.class,
                () -> a.lowLatencyDispatch(x, topk(1, 1, 0, -1), false));
        a.close();
        expect("is closed", IllegalStateException.class, () -> a.lowLatencyDispatch(x, idx, false));
    }

    @Test
    void dispatchAndCombineAreRecordedAsJfrEvents(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        CheckedMoe moe = normal();
        Tensor idx = topk(0, 5, 1, -1);
        MoeLayout layout = new MoeLayout(
                intTensor(2, 1),
                Tensor.allocate(arena, DType.INT32, EXPERTS),
                Tensor.allocate(arena, DType.BOOL, 2, RANKS));
        java.nio.file.Path file = dir.resolve("moe.jfr");
        try (jdk.jfr.Recording rec = new jdk.jfr.Recording()) {
            rec.enable("dev.unicomm.Moe");
            rec.start();
            Dispatched d = moe.dispatch(bf16(2, HIDDEN), null, idx, null, layout, 1);
            moe.combine(bf16(3, HIDDEN), d.handle());
            rec.stop();
            rec.dump(file);
        }
        var events = jdk.jfr.consumer.RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("dev.unicomm.Moe"))
                .toList();
        assertEquals(
                java.util.List.of("dispatch", "combine"),
                events.stream().map(e -> e.getString("operation")).toList());
        assertEquals(2, events.get(0).getLong("tokens"));
        assertEquals(2L * HIDDEN * 2, events.get(0).getLong("bytes"));
        assertEquals(3, events.get(1).getLong("tokens"));
        assertEquals(EXPERTS, events.get(1).getInt("experts"));
        assertEquals(RANKS, events.get(1).getInt("ranks"));
    }

    Tensor intTensor(int... values) {
        Tensor t = Tensor.allocate(arena, DType.INT32, values.length);
        for (int i = 0; i < values.length; i++) t.segment().setAtIndex(ValueLayout.JAVA_INT, i, values[i]);
        return t;
    }

    @Test
    void streamOrderedLowLatencyIsCheckedAndUnsupportedWhereNotImplemented() {
        CheckedMoe moe = lowLatency();
        dev.unicomm.api.Stream stream = new dev.unicomm.api.Stream() {
            public long handle() {
                return 0;
            }

            public void synchronize() {}

            public boolean isOpen() {
                return true;
            }

            public void close() {}
        };
        Tensor idx = topk(0, 5, 1, -1);
        expect(
                "stream must not be null",
                IllegalArgumentException.class,
                () -> moe.lowLatencyDispatch(null, bf16(2, HIDDEN), idx, false));
        expect(
                "topkIdx[0, 1] = 9",
                IllegalArgumentException.class,
                () -> moe.lowLatencyDispatch(stream, bf16(2, HIDDEN), topk(0, 9, 1, -1), false));
        expect(
                "x must have shape [2, 256]",
                IllegalArgumentException.class,
                () -> moe.lowLatencyDispatch(stream, bf16(2, 128), idx, false));
        assertEquals(0, ((Recording) moe.unwrap()).calls);
        // The recording implementation has no stream-ordered path: the interface's default says so.
        UnsupportedOperationException e = assertThrows(
                UnsupportedOperationException.class, () -> moe.lowLatencyDispatch(stream, bf16(2, HIDDEN), idx, false));
        assertTrue(e.getMessage().contains("no stream-ordered low-latency path"), e.getMessage());
    }

    @Test
    void sizeHintFollowsTheDocumentedFormula() {
        MoeConfig n = new MoeConfig(MoeConfig.Mode.NORMAL, 256, 7168, 4096, 8, true);
        assertEquals(64 + 12 * 4096 * 8 + 4096L * (2 * 7168 + 96) * 4, n.sizeHint(4));
        MoeConfig tiny = new MoeConfig(MoeConfig.Mode.NORMAL, 8, 16, 1, 1, false); // 12TK < 8R: the R count words
        assertEquals(64 + 8 * 8 + 8L * (2 * 16 + 12), tiny.sizeHint(8));
        assertEquals(4096L * (2 * 7168 + 32), n.outputBytes());
        MoeConfig ll = new MoeConfig(MoeConfig.Mode.LOW_LATENCY, 256, 7168, 128, 8, true);
        assertEquals(
                64 + 32 * 4 + 2 * (128L * (2 * 7168 + 64) + 64L * 4 * 128 * 2 * 7168) + 4L * 128 * (8 * 7168 + 256),
                ll.sizeHint(4));
        expect("must be divisible", IllegalArgumentException.class, () -> n.sizeHint(3));
        assertEquals(n.sizeHint(4), MoeBuffer.sizeHint(n, 4));
    }
}
