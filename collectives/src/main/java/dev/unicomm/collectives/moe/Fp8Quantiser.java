package dev.unicomm.collectives.moe;

/**
 * Per-token FP8 e4m3 quantisation, one fp32 scale per 128 channels, as DeepEP's
 * {@code per_token_cast_to_fp8}: {@code amax = max(|x| over the block, 1e-4)},
 * {@code code = e4m3(x * (448 / amax))} rounded to nearest even, {@code scale = amax / 448}.
 */
final class Fp8Quantiser {
    private Fp8Quantiser() {}

    static final int BLOCK = 128;
    private static final float MAX = 448f, MIN_AMAX = 1e-4f;

    /** Quantises BF16 {@code row[0..hidden)} into {@code codes[codeOffset..]} and {@code scales[scaleOffset..]}. */
    static void quantise(short[] row, int hidden, byte[] codes, int codeOffset, float[] scales, int scaleOffset) {
        for (int b = 0; b < hidden / BLOCK; b++) {
            int base = b * BLOCK;
            float amax = 0f;
            for (int c = 0; c < BLOCK; c++) amax = Math.max(amax, Math.abs(Float.intBitsToFloat(row[base + c] << 16)));
            amax = Math.max(amax, MIN_AMAX);
            float mul = MAX / amax;
            for (int c = 0; c < BLOCK; c++) codes[codeOffset + base + c] = encode(Float.intBitsToFloat(row[base + c] << 16) * mul);
            scales[scaleOffset + b] = amax / MAX;
        }
    }

    /**
     * Nearest e4m3 code, ties to even; NaN gives 0x7F; values beyond 448 saturate. Branch-free so
     * the JIT can vectorise the loop: normal values round their fp32 bits to 3 mantissa bits (the
     * carry moves into the exponent), subnormals ({@code < 2^-6}) round {@code a * 512} to an
     * integer with the 2^23 trick (fp32 addition rounds to nearest even).
     */
    static byte encode(float f) {
        int bits = Float.floatToRawIntBits(f);
        int abits = bits & 0x7FFFFFFF;
        int normal = ((abits + 0x7FFFF + ((abits >>> 20) & 1)) >>> 20) - 960;
        int sub = Float.floatToRawIntBits(Float.intBitsToFloat(abits) * 512f + 0x1p23f) - 0x4B000000;
        int code = Math.min(abits < 0x3C800000 ? sub : normal, 0x7E);
        int value = ((bits >>> 24) & 0x80) | code;
        return (byte) (abits > 0x7F800000 ? 0x7F : value);
    }
}
