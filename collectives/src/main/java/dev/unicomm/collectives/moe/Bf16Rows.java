package dev.unicomm.collectives.moe;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** fp32 accumulation of BF16 rows and rounding back (nearest, ties to even), on plain arrays so the JIT vectorises. */
final class Bf16Rows {
    private Bf16Rows() {}

    private static final ValueLayout.OfShort BF16 = ValueLayout.JAVA_SHORT_UNALIGNED;

    /** Loads a row of {@code n} BF16 values into {@code tmp}. */
    static void load(MemorySegment src, long offset, short[] tmp, int n) {
        MemorySegment.copy(src, BF16, offset, tmp, 0, n);
    }

    /** {@code acc = row} (widened). */
    static void set(float[] acc, short[] row, int n) {
        for (int i = 0; i < n; i++) acc[i] = Float.intBitsToFloat(row[i] << 16);
    }

    /** {@code acc += row}. */
    static void add(float[] acc, short[] row, int n) {
        for (int i = 0; i < n; i++) acc[i] += Float.intBitsToFloat(row[i] << 16);
    }

    /** {@code acc += w * row}. */
    static void addScaled(float[] acc, short[] row, float w, int n) {
        for (int i = 0; i < n; i++) acc[i] += w * Float.intBitsToFloat(row[i] << 16);
    }

    /** Rounds {@code acc} to BF16 into {@code out}. */
    static void round(float[] acc, short[] out, int n) {
        for (int i = 0; i < n; i++) out[i] = fromFloat(acc[i]);
    }

    /** Stores a row of {@code n} BF16 values. */
    static void store(short[] row, MemorySegment dst, long offset, int n) {
        MemorySegment.copy(row, 0, dst, BF16, offset, n);
    }

    static short fromFloat(float f) {
        int bits = Float.floatToRawIntBits(f);
        if ((bits & 0x7FFFFFFF) > 0x7F800000) return (short) ((bits >>> 16) | 0x0040);
        return (short) ((bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16);
    }
}
