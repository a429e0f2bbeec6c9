package dev.unicomm.moe.reference;

/**
 * FP8 e4m3 ("fn" variant used by DeepEP: bias 7, 3 mantissa bits, no infinities, largest finite
 * 448, {@code 0x7F}/{@code 0xFF} NaN) and the per-token block quantiser of the MoE semantics.
 *
 * <p>Encoding is written independently of any fast path: it searches the sorted table of the 127
 * non-negative finite codes for the nearest value, ties to the even code. Finite values beyond
 * 448 saturate to 448.
 */
public final class Fp8E4m3 {
    private Fp8E4m3() {}

    /** Largest finite value. */
    public static final float MAX = 448f;
    /** DeepEP clamps a block's amax to at least this before computing its scale. */
    public static final float MIN_AMAX = 1e-4f;
    /** Channels per scale. */
    public static final int BLOCK = 128;

    private static final float[] VALUES = new float[127]; // code 0..126 -> value, ascending

    static {
        for (int c = 0; c < 127; c++) VALUES[c] = decode((byte) c);
    }

    /** Exact value of a code. */
    public static float decode(byte code) {
        int b = code & 0xFF;
        float sign = (b & 0x80) != 0 ? -1f : 1f;
        int exp = (b >>> 3) & 0xF, man = b & 7;
        if (exp == 0xF && man == 7) return Float.NaN;
        if (exp == 0) return sign * man * 0x1p-9f;
        return sign * (1f + man / 8f) * (float) Math.scalb(1.0, exp - 7);
    }

    /** Nearest code, ties to even; NaN gives {@code 0x7F}; beyond 448 saturates. */
    public static byte encode(float f) {
        if (Float.isNaN(f)) return 0x7F;
        int sign = (Float.floatToRawIntBits(f) >>> 31) << 7;
        float a = Math.abs(f);
        if (a >= MAX) return (byte) (sign | 126);
        int lo = 0, hi = 126; // VALUES[lo] <= a < VALUES[hi] once narrowed
        while (hi - lo > 1) {
            int mid = (lo + hi) >>> 1;
            if (VALUES[mid] <= a) lo = mid;
            else hi = mid;
        }
        float dLo = a - VALUES[lo], dHi = VALUES[hi] - a;
        int code = dLo < dHi ? lo : dHi < dLo ? hi : (lo % 2 == 0 ? lo : hi);
        return (byte) (sign | code);
    }

    /**
     * Quantises one token's BF16 row ({@code hidden} values, a multiple of 128) the way DeepEP's
     * {@code per_token_cast_to_fp8} does, all in fp32: per block, {@code amax = max(|x|, 1e-4)},
     * {@code data = e4m3(x * (448 / amax))}, {@code scale = amax / 448}.
     *
     * @param row    BF16 patterns of one token
     * @param data   receives {@code hidden} codes at {@code dataOffset}
     * @param scales receives {@code hidden/128} scales at {@code scaleOffset}
     */
    public static void quantiseRow(
            short[] row, int rowOffset, int hidden, byte[] data, int dataOffset, float[] scales, int scaleOffset) {
        if (hidden % BLOCK != 0) throw new IllegalArgumentException("FP8 needs hidden % 128 == 0, got " + hidden);
        for (int b = 0; b < hidden / BLOCK; b++) {
            float amax = 0f;
            for (int c = 0; c < BLOCK; c++)
                amax = Math.max(amax, Math.abs(Bf16.toFloat(row[rowOffset + b * BLOCK + c])));
            amax = Math.max(amax, MIN_AMAX);
            float mul = MAX / amax;
            for (int c = 0; c < BLOCK; c++)
                data[dataOffset + b * BLOCK + c] = encode(Bf16.toFloat(row[rowOffset + b * BLOCK + c]) * mul);
            scales[scaleOffset + b] = amax / MAX;
        }
    }

    /** Dequantised value of channel {@code c} of a row. */
    public static float dequantise(byte[] data, int dataOffset, float[] scales, int scaleOffset, int c) {
        return decode(data[dataOffset + c]) * scales[scaleOffset + c / BLOCK];
    }

    /**
     * Whether {@code dequantised} is within e4m3's rounding of {@code original} for a block with
     * this scale: half the code spacing at the value's binade (relative 2^-4), or half the
     * subnormal step times the scale, plus fp32 slack.
     */
    public static boolean withinQuantisationError(float original, float dequantised, float scale) {
        float bound = Math.max(Math.abs(original) * 0x1p-4f, 0x1p-10f * scale) * 1.0001f;
        return Math.abs(original - dequantised) <= bound;
    }
}
