package dev.unicomm.collectives.moe;

import java.lang.foreign.MemorySegment;

/**
 * fp32 accumulation of BF16 rows read straight from (peer) memory, and rounding back to BF16
 * (nearest, ties to even). Uses the JDK's Vector API where the JVM was started with
 * {@code --add-modules jdk.incubator.vector} (about three times faster here: the rounding does
 * not auto-vectorise well), else plain loops; both give bit-identical results. Vector API code
 * runs slowly until the JIT has compiled it, so the first large combine of a process is slow.
 */
interface RowMath {
    /** {@code acc[i] = bf16(seg[off + 2i])}. */
    void set(float[] acc, MemorySegment seg, long off, int n);

    /** {@code acc[i] += bf16(seg[off + 2i])}. */
    void add(float[] acc, MemorySegment seg, long off, int n);

    /** {@code acc[i] += w * bf16(seg[off + 2i])} (product rounded, then sum rounded: no fused multiply-add). */
    void addScaled(float[] acc, MemorySegment seg, long off, float w, int n);

    /** {@code seg[off + 2i] = bf16(acc[i])}. */
    void round(float[] acc, MemorySegment seg, long off, int n);

    /**
     * {@code out[outOff + 2i] = bf16(rows[0][i] + rows[1][i] + ...)}: the first {@code count} rows
     * ({@code segs[j]} at {@code offs[j]}) summed in fp32 in that order, then rounded once; equal to
     * {@link #set}, {@link #add}s and {@link #round}. {@code scratch} holds at least {@code n} floats.
     */
    default void sum(
            MemorySegment[] segs, long[] offs, int count, float[] scratch, MemorySegment out, long outOff, int n) {
        set(scratch, segs[0], offs[0], n);
        for (int j = 1; j < count; j++) add(scratch, segs[j], offs[j], n);
        round(scratch, out, outOff, n);
    }

    /**
     * {@code out[outOff + 2i] = bf16(0 + w[0] * rows[0][i] + w[1] * rows[1][i] + ...)}: the first
     * {@code count} rows weighted and summed in fp32 in that order (each product rounded, then each
     * sum), rounded once; equal to zeroing, {@link #addScaled}s and {@link #round}.
     * {@code scratch} holds at least {@code n} floats.
     */
    default void weightedSum(
            MemorySegment[] segs,
            long[] offs,
            float[] w,
            int count,
            float[] scratch,
            MemorySegment out,
            long outOff,
            int n) {
        java.util.Arrays.fill(scratch, 0, n, 0f);
        for (int j = 0; j < count; j++) addScaled(scratch, segs[j], offs[j], w[j], n);
        round(scratch, out, outOff, n);
    }

    /** The fastest implementation this JVM can run. */
    RowMath BEST = Selection.best();

    /** Picks the implementation once. */
    final class Selection {
        private Selection() {}

        static RowMath best() {
            if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) return new ScalarRowMath();
            try {
                return new VectorRowMath();
            } catch (LinkageError | RuntimeException e) {
                return new ScalarRowMath();
            }
        }
    }
}
