package dev.unicomm.collectives;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.unicomm.api.DType;
import dev.unicomm.api.ReduceOp;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

class ReducerTest {
    private static final DType[] TYPES = {DType.INT32, DType.INT64, DType.FP32, DType.FP16, DType.BF16};

    @Test
    void everyTypeAndOpMatchesTheScalarReference() {
        Reducer r = new Reducer();
        try (Arena arena = Arena.ofConfined()) {
            for (DType dt : TYPES) {
                for (ReduceOp op : ReduceOp.values()) {
                    for (int sources : new int[] {1, 2, 3, 5}) {
                        for (int count : new int[] {0, 1, 17, Reducer.BLOCK + 3}) {
                            byte[][] in = new byte[sources][];
                            MemorySegment[] segs = new MemorySegment[sources];
                            for (int s = 0; s < sources; s++) {
                                in[s] = Reference.data(dt, count * 31L + op.ordinal(), s, count);
                                segs[s] = arena.allocate(Math.max(1, in[s].length))
                                        .asSlice(0, in[s].length);
                                MemorySegment.copy(MemorySegment.ofArray(in[s]), 0, segs[s], 0, in[s].length);
                            }
                            MemorySegment dst = arena.allocate(Math.max(1, (long) count * dt.byteSize()));
                            r.reduce(dt, op, segs, dst, count);
                            byte[] want = Reference.reduce(dt, op, in, count);
                            assertArrayEquals(
                                    want,
                                    dst.asSlice(0, want.length).toArray(ValueLayout.JAVA_BYTE),
                                    dt + " " + op + " sources=" + sources + " count=" + count);
                        }
                    }
                }
            }
        }
    }

    @Test
    void destinationMayBeASource() {
        Reducer r = new Reducer();
        int count = Reducer.BLOCK * 2 + 5;
        byte[][] in = {Reference.data(DType.FP32, 9, 0, count), Reference.data(DType.FP32, 9, 1, count)};
        MemorySegment a = MemorySegment.ofArray(in[0].clone()), b = MemorySegment.ofArray(in[1].clone());
        r.reduce(DType.FP32, ReduceOp.SUM, new MemorySegment[] {a, b}, b, count);
        assertArrayEquals(Reference.reduce(DType.FP32, ReduceOp.SUM, in, count), b.toArray(ValueLayout.JAVA_BYTE));
    }

    @Test
    void bf16SumIsRoundedOnceNotPerStep() {
        // 1 + 2^-8 + 2^-8: per-step bf16 rounding gives 1 (each tie rounds to even), one rounding gives 1 + 2^-7.
        short one = HalfFloats.floatToBf16(1f), tiny = HalfFloats.floatToBf16(0x1p-8f);
        MemorySegment[] srcs = new MemorySegment[3];
        short[] values = {one, tiny, tiny};
        for (int i = 0; i < 3; i++) srcs[i] = MemorySegment.ofArray(new short[] {values[i]});
        MemorySegment dst = MemorySegment.ofArray(new short[1]);
        new Reducer().reduce(DType.BF16, ReduceOp.SUM, srcs, dst, 1);
        assertEquals(1f + 0x1p-7f, HalfFloats.bf16ToFloat(dst.get(ValueLayout.JAVA_SHORT, 0)));
    }

    @Test
    void chunksCoverTheVectorInLineMultiples() {
        long[] b = Chunks.split(1001, 3, 4);
        assertEquals(0, b[0]);
        assertEquals(1001, b[3]);
        assertEquals(0, b[1] % 16);
        long[] tiny = Chunks.split(5, 4, 4);
        assertArrayEquals(new long[] {0, 5, 5, 5, 5}, tiny);
    }
}
