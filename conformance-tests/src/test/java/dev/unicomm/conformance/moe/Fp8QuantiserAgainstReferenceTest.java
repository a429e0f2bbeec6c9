package dev.unicomm.conformance.moe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.collectives.fp8.Fp8Quantiser;
import dev.unicomm.moe.reference.Bf16;
import dev.unicomm.moe.reference.Fp8E4m3;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The portable path's fast FP8 quantiser (Vector API) against the kit's reference
 * ({@link Fp8E4m3#quantiseRow}, a table search): identical codes and scales, over random rows and
 * over every BF16 bit pattern (so every zero, subnormal, tie, maximum, infinity and NaN).
 */
class Fp8QuantiserAgainstReferenceTest {

    static void assertSameAsReference(short[] bf16, int hidden, String what) {
        int rows = bf16.length / hidden;
        byte[] want = new byte[bf16.length], got = new byte[bf16.length];
        float[] wantScales = new float[bf16.length / 128], gotScales = new float[bf16.length / 128];
        for (int r = 0; r < rows; r++)
            Fp8E4m3.quantiseRow(bf16, r * hidden, hidden, want, r * hidden, wantScales, r * (hidden / 128));
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(2L * bf16.length),
                    codes = arena.allocate(bf16.length),
                    scales = arena.allocate(4L * gotScales.length);
            MemorySegment.copy(bf16, 0, src, ValueLayout.JAVA_SHORT_UNALIGNED, 0, bf16.length);
            Fp8Quantiser.quantise(src, 0, rows, hidden, codes, 0, scales, 0);
            MemorySegment.copy(codes, ValueLayout.JAVA_BYTE, 0, got, 0, got.length);
            MemorySegment.copy(scales, ValueLayout.JAVA_FLOAT_UNALIGNED, 0, gotScales, 0, gotScales.length);
        }
        for (int i = 0; i < want.length; i++) {
            int at = i;
            assertEquals(want[i], got[i], () -> what + ": code " + at + " of input " + Bf16.toFloat(bf16[at]));
        }
        assertArrayEquals(wantScales, gotScales, what + ": scales (NaN scales compare equal whatever their payload)");
    }

    @Test
    void runsTheVectorPath() {
        assertTrue(Fp8Quantiser.vectorised(), "the kit's tests run with --add-modules jdk.incubator.vector");
    }

    @Test
    void everyBf16PatternAloneAndAmongOthers() {
        // Each pattern once in a block of ones: the block's scale comes from 1.0 or the pattern itself.
        short[] mixed = new short[1 << 16 << 1];
        for (int p = 0; p < 1 << 16; p++) {
            mixed[2 * p] = (short) p;
            mixed[2 * p + 1] = Bf16.fromFloat(p % 3 == 0 ? 1f : p % 3 == 1 ? 0x1p-20f : 300f);
        }
        assertSameAsReference(mixed, 1024, "patterns with neighbours");
        // Patterns filling a whole block, so amax is the pattern itself: every 5th pattern, and all
        // whose exponent field is 0 or all ones (zeros, subnormals, infinities, NaNs) — kept short.
        short[] whole = new short[128 * 16384];
        int blocks = 0;
        for (int p = 0; p < 1 << 16; p++) {
            int exp = (p >>> 7) & 0xFF;
            if (p % 5 != 0 && exp != 0 && exp != 0xFF) continue;
            java.util.Arrays.fill(whole, blocks * 128, (blocks + 1) * 128, (short) p);
            blocks++;
        }
        assertSameAsReference(java.util.Arrays.copyOf(whole, blocks * 128), 128, "blocks of one pattern");
    }

    @Test
    void randomRowsOfDeepEpShape() {
        SplittableRandom rnd = new SplittableRandom(22);
        short[] rows = new short[4 * 7168];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = Bf16.fromFloat((float) rnd.nextGaussian() * Math.scalb(1f, rnd.nextInt(-30, 10)));
        }
        assertSameAsReference(rows, 7168, "gaussian rows");
    }
}
