package dev.unicomm.collectives;

/**
 * Conversions between FP32 and the 16-bit float formats the reductions accept. Narrowing rounds to
 * nearest, ties to even (IEEE 754 default); NaN stays NaN (quiet), infinities stay infinities.
 */
public final class HalfFloats {
    private HalfFloats() {}

    /** The FP32 value of BF16 bits {@code h} (exact: BF16 is FP32's upper half). */
    public static float bf16ToFloat(short h) {
        return Float.intBitsToFloat(h << 16);
    }

    /** BF16 bits nearest to {@code f} (round to nearest even; NaN becomes a quiet NaN). */
    public static short floatToBf16(float f) {
        int bits = Float.floatToRawIntBits(f);
        if ((bits & 0x7fff_ffff) > 0x7f80_0000) return (short) ((bits >>> 16) | 0x0040);
        // Adding 0x7fff plus the lowest kept bit rounds ties towards the even result.
        return (short) ((bits + 0x7fff + ((bits >>> 16) & 1)) >>> 16);
    }

    /** The FP32 value of FP16 bits {@code h} (exact). */
    public static float fp16ToFloat(short h) {
        return Float.float16ToFloat(h);
    }

    /** FP16 bits nearest to {@code f} (round to nearest even, overflow to infinity). */
    public static short floatToFp16(float f) {
        return Float.floatToFloat16(f);
    }
}
