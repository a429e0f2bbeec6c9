package dev.unicomm.collectives.moe;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** {@link RowMath} in plain Java. */
final class ScalarRowMath implements RowMath {
    private static final ValueLayout.OfShort BF16 = ValueLayout.JAVA_SHORT_UNALIGNED;

    private static float at(MemorySegment seg, long off, int i) {
        return Float.intBitsToFloat(seg.get(BF16, off + 2L * i) << 16);
    }

    @Override
    public void set(float[] acc, MemorySegment seg, long off, int n) {
        for (int i = 0; i < n; i++) acc[i] = at(seg, off, i);
    }

    @Override
    public void add(float[] acc, MemorySegment seg, long off, int n) {
        for (int i = 0; i < n; i++) acc[i] += at(seg, off, i);
    }

    @Override
    public void addScaled(float[] acc, MemorySegment seg, long off, float w, int n) {
        for (int i = 0; i < n; i++) acc[i] += w * at(seg, off, i);
    }

    @Override
    public void round(float[] acc, MemorySegment seg, long off, int n) {
        for (int i = 0; i < n; i++) seg.set(BF16, off + 2L * i, fromFloat(acc[i]));
    }

    /** Round to nearest, ties to even; NaN stays a (quiet) NaN. */
    static short fromFloat(float f) {
        int bits = Float.floatToRawIntBits(f);
        int rounded = (bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16;
        return (short) ((bits & 0x7FFFFFFF) > 0x7F800000 ? (bits >>> 16) | 0x0040 : rounded);
    }
}
