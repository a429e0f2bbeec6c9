package dev.unicomm.collectives.moe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.unicomm.conformance.moe.Bf16;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The Vector API row math gives exactly the scalar results (and the reference's rounding). */
class RowMathTest {
    @Test void vectorAndScalarAgreeBitForBit() {
        RowMath vector = RowMath.BEST, scalar = new ScalarRowMath();
        assertInstanceOf(VectorRowMath.class, vector, "tests run with --add-modules jdk.incubator.vector");
        SplittableRandom rnd = new SplittableRandom(3);
        for (int n : new int[] {1, 7, 8, 96, 133, 7168}) {
            MemorySegment a = Arena.ofAuto().allocate(2L * n + 2), b = Arena.ofAuto().allocate(2L * n + 2);
            for (int i = 0; i < n; i++) {
                a.set(ValueLayout.JAVA_SHORT_UNALIGNED, 2 + 2L * i, Bf16.fromFloat((float) rnd.nextGaussian() * 100));
                b.set(ValueLayout.JAVA_SHORT_UNALIGNED, 2 + 2L * i, (short) rnd.nextInt()); // any pattern, NaNs included
            }
            float[] av = new float[n], as = new float[n];
            vector.set(av, a, 2, n);
            scalar.set(as, a, 2, n);
            vector.add(av, b, 2, n);
            scalar.add(as, b, 2, n);
            vector.addScaled(av, a, 2, 0.37f, n);
            scalar.addScaled(as, a, 2, 0.37f, n);
            assertArrayEquals(as, av);
            MemorySegment ov = Arena.ofAuto().allocate(2L * n + 2), os = Arena.ofAuto().allocate(2L * n + 2);
            vector.round(av, ov, 2, n);
            scalar.round(as, os, 2, n);
            assertEquals(-1L, os.mismatch(ov), "rounded rows differ for n=" + n);
            for (int i = 0; i < n; i++)
                assertEquals(Bf16.fromFloat(as[i]), os.get(ValueLayout.JAVA_SHORT_UNALIGNED, 2 + 2L * i));
        }
    }
}
