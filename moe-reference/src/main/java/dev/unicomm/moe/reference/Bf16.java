package dev.unicomm.moe.reference;

/**
 * bfloat16 as 16-bit patterns (the high half of an IEEE fp32): widening is exact, narrowing rounds
 * to nearest, ties to even; NaN stays NaN (a quiet NaN pattern).
 */
public final class Bf16 {
    private Bf16() {}

    /** Exact widening. */
    public static float toFloat(short bits) {
        return Float.intBitsToFloat((bits & 0xFFFF) << 16);
    }

    /** Round to nearest, ties to even. */
    public static short fromFloat(float f) {
        int bits = Float.floatToRawIntBits(f);
        if ((bits & 0x7FFFFFFF) > 0x7F800000) return (short) ((bits >>> 16) | 0x0040); // NaN: keep sign, force quiet
        int lsb = (bits >>> 16) & 1;
        return (short) ((bits + 0x7FFF + lsb) >>> 16);
    }

    /**
     * Distance in units in the last place between two finite bf16 values (0 for +0 and -0): the
     * number of representable values between them on the ordered line.
     */
    public static int ulpDistance(short a, short b) {
        return Math.abs(ordinal(a) - ordinal(b));
    }

    private static int ordinal(short bits) {
        int v = bits & 0xFFFF;
        return (v & 0x8000) != 0 ? -(v & 0x7FFF) : v;
    }

    /** Whether the pattern is a NaN. */
    public static boolean isNaN(short bits) {
        return (bits & 0x7F80) == 0x7F80 && (bits & 0x007F) != 0;
    }
}
