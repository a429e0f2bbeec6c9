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

    /** Nearest e4m3 code, ties to even; NaN gives 0x7F; finite values beyond 448 saturate. */
    static byte encode(float f) {
        if (f != f) return 0x7F;
        int bits = Float.floatToRawIntBits(f);
        int sign = (bits >>> 24) & 0x80;
        float a = Math.abs(f);
        if (a >= MAX) return (byte) (sign | 0x7E);
        int code;
        if (a < 0x1p-6f) {
            code = (int) Math.rint(a * 512f); // subnormal steps of 2^-9; exact scaling, rint = ties to even
        } else {
            int abits = bits & 0x7FFFFFFF;
            int exp = (abits >>> 23) - 127, man = abits & 0x7FFFFF;
            int q = man >>> 20, rem = man & 0xFFFFF;
            if (rem > 0x80000 || (rem == 0x80000 && (q & 1) == 1)) q++;
            code = Math.min(((exp + 7) << 3) + q, 0x7E);
        }
        return (byte) (sign | code);
    }
}
