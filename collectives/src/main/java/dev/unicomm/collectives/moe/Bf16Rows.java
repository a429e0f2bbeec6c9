package dev.unicomm.collectives.moe;

/** BF16 rounding shared by the row math implementations. */
final class Bf16Rows {
    private Bf16Rows() {}

    /** Round to nearest, ties to even; NaN stays a (quiet) NaN. */
    static short fromFloat(float f) {
        int bits = Float.floatToRawIntBits(f);
        if ((bits & 0x7FFFFFFF) > 0x7F800000) return (short) ((bits >>> 16) | 0x0040);
        return (short) ((bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16);
    }
}
