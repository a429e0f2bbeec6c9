package dev.unicomm.collectives.moe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** BF16 row accumulation and rounding: hand-computed values, and the Vector API path equal to the scalar one. */
class RowMathTest {
    static MemorySegment row(short... bits) {
        MemorySegment s = Arena.ofAuto().allocate(2L * bits.length + 2);
        for (int i = 0; i < bits.length; i++) s.set(ValueLayout.JAVA_SHORT_UNALIGNED, 2 + 2L * i, bits[i]);
        return s;
    }

    @Test
    void accumulatesInFp32AndRoundsToNearestEven() {
        for (RowMath math : new RowMath[] {new ScalarRowMath(), RowMath.BEST}) {
            // 1.0, 2^-8, -2.0, 3.0 (bf16 patterns)
            MemorySegment a = row((short) 0x3F80, (short) 0x3B80, (short) 0xC000, (short) 0x4040);
            MemorySegment b = row((short) 0x3B80, (short) 0x3F80, (short) 0x3F80, (short) 0x4040);
            float[] acc = new float[4];
            math.set(acc, a, 2, 4);
            math.add(acc, b, 2, 4);
            assertEquals(1f + 0x1p-8f, acc[0]);
            assertEquals(-1f, acc[2]);
            math.addScaled(acc, a, 2, 0.5f, 4);
            assertEquals(1.5f + 0x1p-8f, acc[0]);
            assertEquals(9f / 2 + 3f, acc[3]);
            MemorySegment out = Arena.ofAuto().allocate(10);
            math.round(new float[] {1f + 0x1p-8f, 1f + 3 * 0x1p-8f, Float.NaN, -0f}, out, 2, 4);
            assertEquals((short) 0x3F80, out.get(ValueLayout.JAVA_SHORT_UNALIGNED, 2)); // tie: even stays
            assertEquals((short) 0x3F82, out.get(ValueLayout.JAVA_SHORT_UNALIGNED, 4)); // tie: odd rounds up
            assertEquals((short) 0x7FC0, out.get(ValueLayout.JAVA_SHORT_UNALIGNED, 6)); // NaN stays NaN
            assertEquals((short) 0x8000, out.get(ValueLayout.JAVA_SHORT_UNALIGNED, 8));
        }
    }

    @Test
    void vectorAndScalarAgreeBitForBit() {
        RowMath vector = RowMath.BEST, scalar = new ScalarRowMath();
        assertInstanceOf(VectorRowMath.class, vector, "tests run with --add-modules jdk.incubator.vector");
        SplittableRandom rnd = new SplittableRandom(3);
        for (int n : new int[] {1, 7, 8, 96, 133, 7168}) {
            MemorySegment a = Arena.ofAuto().allocate(2L * n + 2),
                    b = Arena.ofAuto().allocate(2L * n + 2);
            for (int i = 0; i < n; i++) {
                a.set(
                        ValueLayout.JAVA_SHORT_UNALIGNED,
                        2 + 2L * i,
                        ScalarRowMath.fromFloat((float) rnd.nextGaussian() * 100));
                b.set(ValueLayout.JAVA_SHORT_UNALIGNED, 2 + 2L * i, (short)
                        rnd.nextInt()); // any pattern, NaNs included
            }
            float[] av = new float[n], as = new float[n];
            vector.set(av, a, 2, n);
            scalar.set(as, a, 2, n);
            vector.add(av, b, 2, n);
            scalar.add(as, b, 2, n);
            vector.addScaled(av, a, 2, 0.37f, n);
            scalar.addScaled(as, a, 2, 0.37f, n);
            assertArrayEquals(as, av);
            MemorySegment ov = Arena.ofAuto().allocate(2L * n + 2),
                    os = Arena.ofAuto().allocate(2L * n + 2);
            vector.round(av, ov, 2, n);
            scalar.round(as, os, 2, n);
            assertEquals(-1L, os.mismatch(ov), "rounded rows differ for n=" + n);
        }
    }

    @Test
    void fusedSumEqualsSetAddRound() {
        RowMath vector = RowMath.BEST, scalar = new ScalarRowMath();
        SplittableRandom rnd = new SplittableRandom(5);
        for (int n : new int[] {1, 7, 8, 133, 7168}) {
            for (int count = 2; count <= 4; count++) {
                MemorySegment[] rows = new MemorySegment[count];
                long[] offs = new long[count];
                for (int j = 0; j < count; j++) {
                    rows[j] = Arena.ofAuto().allocate(2L * n + 2 * j);
                    offs[j] = 2L * j; // each row at its own offset
                    for (int i = 0; i < n; i++) {
                        short v = j == 1
                                ? (short) rnd.nextInt()
                                : ScalarRowMath.fromFloat((float) rnd.nextGaussian() * 100); // any pattern in one row
                        rows[j].set(ValueLayout.JAVA_SHORT_UNALIGNED, offs[j] + 2L * i, v);
                    }
                }
                float[] acc = new float[n];
                scalar.set(acc, rows[0], offs[0], n);
                for (int j = 1; j < count; j++) scalar.add(acc, rows[j], offs[j], n);
                MemorySegment want = Arena.ofAuto().allocate(2L * n + 2);
                scalar.round(acc, want, 2, n);
                for (RowMath math : new RowMath[] {scalar, vector}) {
                    MemorySegment got = Arena.ofAuto().allocate(2L * n + 2);
                    math.sum(rows, offs, count, new float[n], got, 2, n);
                    assertEquals(
                            -1L,
                            want.mismatch(got),
                            math.getClass().getSimpleName() + ": n=" + n + ", " + count + " rows");
                }
            }
        }
    }

    @Test
    void weightedSumEqualsZeroAddScaledRound() {
        RowMath vector = RowMath.BEST, scalar = new ScalarRowMath();
        SplittableRandom rnd = new SplittableRandom(7);
        for (int n : new int[] {7, 8, 136, 7168}) {
            for (int count = 0; count <= 9; count++) {
                MemorySegment[] rows = new MemorySegment[count];
                long[] offs = new long[count];
                float[] w = new float[count];
                for (int j = 0; j < count; j++) {
                    rows[j] = Arena.ofAuto().allocate(2L * n + 2 * j);
                    offs[j] = 2L * j;
                    w[j] = j == 2 ? -0f : (float) rnd.nextDouble(); // a -0 weight: 0 + -0 must stay +0
                    for (int i = 0; i < n; i++) {
                        short v = j == 1
                                ? (short) rnd.nextInt()
                                : ScalarRowMath.fromFloat((float) rnd.nextGaussian() * 100);
                        rows[j].set(ValueLayout.JAVA_SHORT_UNALIGNED, offs[j] + 2L * i, v);
                    }
                }
                float[] acc = new float[n];
                for (int j = 0; j < count; j++) scalar.addScaled(acc, rows[j], offs[j], w[j], n);
                MemorySegment want = Arena.ofAuto().allocate(2L * n + 2);
                scalar.round(acc, want, 2, n);
                for (RowMath math : new RowMath[] {scalar, vector}) {
                    MemorySegment got = Arena.ofAuto().allocate(2L * n + 2);
                    float[] scratch = new float[n];
                    java.util.Arrays.fill(scratch, 5f); // leftovers of an earlier token must not leak in
                    math.weightedSum(rows, offs, w, count, scratch, got, 2, n);
                    assertEquals(
                            -1L,
                            want.mismatch(got),
                            math.getClass().getSimpleName() + ": n=" + n + ", " + count + " rows");
                }
            }
        }
    }
}
