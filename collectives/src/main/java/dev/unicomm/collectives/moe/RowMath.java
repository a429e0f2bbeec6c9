package dev.unicomm.collectives.moe;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * fp32 accumulation of BF16 rows read straight from (peer) memory, and rounding back to BF16
 * (nearest, ties to even). Plain loops over segments: the JIT vectorises them.
 */
final class RowMath {
    private RowMath() {}

    private static final ValueLayout.OfShort BF16 = ValueLayout.JAVA_SHORT_UNALIGNED;

    /** {@code acc[i] = bf16(seg[off + 2i])}. */
    static void set(float[] acc, MemorySegment seg, long off, int n) {
        for (int i = 0; i < n; i++) acc[i] = Float.intBitsToFloat(seg.get(BF16, off + 2L * i) << 16);
    }

    /** {@code acc[i] += bf16(seg[off + 2i])}. */
    static void add(float[] acc, MemorySegment seg, long off, int n) {
        for (int i = 0; i < n; i++) acc[i] += Float.intBitsToFloat(seg.get(BF16, off + 2L * i) << 16);
    }

    /** {@code acc[i] += w * bf16(seg[off + 2i])}: product rounded, then sum rounded (Java never fuses them). */
    static void addScaled(float[] acc, MemorySegment seg, long off, float w, int n) {
        for (int i = 0; i < n; i++) acc[i] += w * Float.intBitsToFloat(seg.get(BF16, off + 2L * i) << 16);
    }

    /** {@code seg[off + 2i] = bf16(acc[i])}. */
    static void round(float[] acc, MemorySegment seg, long off, int n) {
        for (int i = 0; i < n; i++) seg.set(BF16, off + 2L * i, fromFloat(acc[i]));
    }

    /** Round to nearest, ties to even; NaN stays a (quiet) NaN. */
    static short fromFloat(float f) {
        int bits = Float.floatToRawIntBits(f);
        if ((bits & 0x7FFFFFFF) > 0x7F800000) return (short) ((bits >>> 16) | 0x0040);
        return (short) ((bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16);
    }
}
