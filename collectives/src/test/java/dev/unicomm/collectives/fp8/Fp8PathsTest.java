package dev.unicomm.collectives.fp8;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The Vector API quantiser gives the same bytes as the plain one (which Fp8EncodeTest checks), and the facade checks its input. */
class Fp8PathsTest {
    static final int H = 7168 + 128; // DeepEP's hidden plus one block

    /**
     * Random BF16 rows, block by block one of: any finite pattern (huge ranges: most codes subnormal
     * or zero), values around 0.5..500 of both signs, tiny values and bf16 subnormals, values within
     * a factor 64 (no subnormal code: the vector path's fast blocks), or any pattern at all
     * (infinities and NaNs included, the plain path's blocks).
     */
    static short[] rows(int rows, long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        short[] v = new short[rows * H];
        for (int b = 0; b < v.length / 128; b++) {
            int kind = rnd.nextInt(8);
            for (int i = b * 128; i < (b + 1) * 128; i++) {
                int p = rnd.nextInt(1 << 16);
                v[i] = (short)
                        switch (kind) {
                            case 0 -> (p & 0x7F80) == 0x7F80 ? p & ~0x4000 : p; // finite, any exponent
                            case 1 -> p; // anything, inf and NaN too
                            case 2 -> p & 0x80FF; // bf16 subnormals and tiny normals
                            case 3, 4 ->
                                rnd.nextInt(0x3E00, 0x4100)
                                        | (p & 0x8000); // 0.125..8: no subnormal codes (the fast path)
                            default -> rnd.nextInt(0x3A00, 0x4400) | (p & 0x8000); // about 0.0005..500
                        };
            }
        }
        // Whole blocks of one kind: zeros, negative zeros, max bf16, infinities, a lone NaN, a lone inf, tiny values.
        short[][] special = {
            {0},
            {(short) 0x8000},
            {0x7F7F},
            {0x7F80, (short) 0xFF80},
            {0x3F80, 0x7FC0},
            {0x3F80, 0x7F80},
            {0x0001, (short) 0x8001},
            {0x4400, 0x43E0, 0x43F0},
            {0x43E0, (short) 0xBC80},
            {0x43E0, 0x3C7F}
        }; // scaled minimum exactly 2^-6 (normal), and just below it
        for (int b = 0; b < special.length && (b + 1) * 128 <= v.length; b++)
            for (int c = 0; c < 128; c++) v[b * 128 + c] = special[b][c % special[b].length];
        return v;
    }

    static void quantise(BlockQuantiser q, short[] in, byte[] codes, float[] scales) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(2L * in.length + 3),
                    c = arena.allocate(codes.length + 1),
                    s = arena.allocate(4L * scales.length + 1);
            MemorySegment.copy(
                    in, 0, src, ValueLayout.JAVA_SHORT_UNALIGNED, 3, in.length); // odd offsets: unaligned access works
            q.quantise(
                    src,
                    3,
                    c,
                    1,
                    s,
                    1,
                    in.length / H,
                    H / 128); // several rows: the vector path's per-row state is reused
            MemorySegment.copy(c, ValueLayout.JAVA_BYTE, 1, codes, 0, codes.length);
            MemorySegment.copy(s, ValueLayout.JAVA_FLOAT_UNALIGNED, 1, scales, 0, scales.length);
        }
    }

    @Test
    void vectorPathMatchesThePlainOneBitForBit() {
        assertTrue(Fp8Quantiser.vectorised(), "tests run with --add-modules jdk.incubator.vector");
        for (long seed = 1; seed <= 4; seed++) {
            short[] in = rows(3, seed);
            byte[] a = new byte[in.length], b = new byte[in.length];
            float[] sa = new float[in.length / 128], sb = new float[in.length / 128];
            quantise(new ScalarFp8(), in, a, sa);
            quantise(new VectorFp8(), in, b, sb);
            assertArrayEquals(a, b, "codes, seed " + seed);
            assertArrayEquals(sa, sb, "scales, seed " + seed); // NaN scales compare equal whatever their payload
        }
    }

    /**
     * The vector path's blocks without subnormal codes (signs kept in the fp32 values): every finite
     * nonzero BF16 pattern, in blocks of one sign and exponent (all 128 mantissas, within a factor 2
     * of each other), alone and with a larger first value so that the multiplier varies (up to
     * scaled minima of 2^-5, still normal).
     */
    @Test
    void normalBlocksOfEveryPatternMatchThePlainPath() {
        float[] factors = {0, 1.5f, 3f, 7.25f, 100f, 3000f, 7000f};
        for (float f : factors) {
            short[] in = new short[H * 9]; // 512 blocks of 128 patterns fill 9 rows of 57 blocks, minus 1
            int blocks = 0;
            for (int hi = 0; hi < 512; hi++) {
                int exponent = hi & 0xFF;
                if (exponent == 0 || exponent == 0xFF) continue; // zero and bf16 subnormals / inf and NaN: other paths
                for (int c = 0; c < 128; c++) in[blocks * 128 + c] = (short) (hi * 128 + c);
                if (f > 0) {
                    float first = Float.intBitsToFloat(in[blocks * 128] << 16) * 2 * f;
                    if (Float.isInfinite(first)) continue; // block left as is, overwritten next
                    in[blocks * 128] = (short) (Float.floatToRawIntBits(first) >>> 16);
                }
                blocks++;
            }
            byte[] a = new byte[in.length], b = new byte[in.length];
            float[] sa = new float[in.length / 128], sb = new float[in.length / 128];
            quantise(new ScalarFp8(), in, a, sa);
            quantise(new VectorFp8(), in, b, sb);
            assertArrayEquals(a, b, "codes, factor " + f);
            assertArrayEquals(sa, sb, "scales, factor " + f);
        }
    }

    /**
     * Blocks whose smallest value lies within a few BF16 steps of where scaled values become normal
     * e4m3 numbers (2^-6), for many block maxima: the vector path's choice between its normal and
     * subnormal steps must never change the codes (a threshold 6 steps too low fails).
     */
    @Test
    void blocksAroundTheSubnormalThresholdMatchThePlainPath() {
        SplittableRandom rnd = new SplittableRandom(22);
        short[] in = new short[H * 8];
        for (int b = 0; b < in.length / 128; b++) {
            float amax = Float.intBitsToFloat(rnd.nextInt(0x0080, 0x7F80) << 16);
            float mul = Fp8Quantiser.MAX / Math.max(amax, Fp8Quantiser.MIN_AMAX);
            int edge = Float.floatToRawIntBits(0x1p-6f / mul) >>> 16; // near the smallest value that scales to 2^-6
            int sign = rnd.nextBoolean() ? 0x8000 : 0,
                    depth = rnd.nextInt(17); // the two roundings differ from about 8 steps below
            for (int c = 0; c < 128; c++) {
                int p = Math.clamp(edge + rnd.nextInt(-depth, 4), 0, 0x7F7F);
                in[b * 128 + c] = (short) (p | (c % 3 == 0 ? sign : 0));
            }
            in[b * 128 + rnd.nextInt(128)] = (short) (Float.floatToRawIntBits(amax) >>> 16);
        }
        byte[] a = new byte[in.length], v = new byte[in.length];
        float[] sa = new float[in.length / 128], sv = new float[in.length / 128];
        quantise(new ScalarFp8(), in, a, sa);
        quantise(new VectorFp8(), in, v, sv);
        assertArrayEquals(a, v, "codes");
        assertArrayEquals(sa, sv, "scales");
    }

    @Test
    void specialBlocksFollowTheDefinition() {
        short[] in = rows(1, 9);
        byte[] codes = new byte[in.length];
        float[] scales = new float[in.length / 128];
        quantise(new VectorFp8(), in, codes, scales);
        assertEquals(0, codes[0]);
        assertEquals(1e-4f / 448f, scales[0]); // zeros: amax clamped
        assertEquals((byte) 0x80, codes[128]); // -0 keeps its sign
        assertEquals((byte) 0x7E, codes[256]); // the block's max maps to 448
        assertEquals(Float.POSITIVE_INFINITY, scales[3]); // inf: scale inf, codes of inf * 0 = NaN
        assertEquals((byte) 0x7F, codes[384]);
        assertTrue(Float.isNaN(scales[4])); // a NaN poisons its block
        assertEquals((byte) 0x7F, codes[512]);
        assertEquals(0, codes[640]); // finite * (448/inf) = 0
        assertEquals((byte) 0x88, codes[1025]); // -2^-6: smallest normal code, sign kept
        assertEquals((byte) 0x08, codes[1153]); // just below 2^-6 rounds up to it
    }

    @Test
    void facadeRejectsBadArguments() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(2 * 256), codes = arena.allocate(256), scales = arena.allocate(8);
            assertThrows(
                    IllegalArgumentException.class, () -> Fp8Quantiser.quantise(src, 0, 1, 100, codes, 0, scales, 0));
            assertThrows(
                    IllegalArgumentException.class, () -> Fp8Quantiser.quantise(src, 0, -1, 128, codes, 0, scales, 0));
            assertThrows(
                    IndexOutOfBoundsException.class, () -> Fp8Quantiser.quantise(src, 0, 3, 128, codes, 0, scales, 0));
            assertThrows(
                    IndexOutOfBoundsException.class, () -> Fp8Quantiser.quantise(src, 0, 2, 128, codes, 1, scales, 0));
            assertThrows(
                    IndexOutOfBoundsException.class, () -> Fp8Quantiser.quantise(src, 0, 2, 128, codes, 0, scales, 4));
            assertThrows(
                    IllegalArgumentException.class,
                    () -> Fp8Quantiser.quantise(src, 0, 2, 128, codes.asReadOnly(), 0, scales, 0));
            Fp8Quantiser.quantise(src, 0, 2, 128, codes, 0, scales, 0);
            assertEquals(1e-4f / 448f, scales.get(ValueLayout.JAVA_FLOAT_UNALIGNED, 4));
        }
    }
}
