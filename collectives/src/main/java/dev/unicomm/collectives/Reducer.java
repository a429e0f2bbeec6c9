package dev.unicomm.collectives;

import dev.unicomm.api.DType;
import dev.unicomm.api.ReduceOp;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Element-wise reduction of several equally long sources into one destination:
 * {@code dst = ((src[0] op src[1]) op src[2]) ...}, always in source order so that every rank
 * computing the same block gets the same bits. Works block by block through Java arrays (bulk
 * copies in and out, plain array loops in between), which the JIT vectorises. BF16 and FP16 are
 * widened to FP32, reduced there and rounded once (to nearest even). Integers wrap on overflow.
 * Min/max of floats follow {@link Math#min(float, float)} (NaN wins, -0.0 &lt; +0.0).
 * The destination may be one of the sources (each block is read completely before it is written).
 * Not thread-safe: one instance per caller.
 */
final class Reducer {
    /** Elements per block: a few KiB per array keeps the working set in L1/L2. */
    static final int BLOCK = 2048;

    private final float[] fa = new float[BLOCK];
    private final float[] fb = new float[BLOCK];
    private final short[] sa = new short[BLOCK];
    private final int[] ia = new int[BLOCK];
    private final int[] ib = new int[BLOCK];
    private final long[] la = new long[BLOCK];
    private final long[] lb = new long[BLOCK];

    /** Reduces {@code count} elements of every source into {@code dst} (all at byte offset 0 of the given segments). */
    void reduce(DType dtype, ReduceOp op, MemorySegment[] srcs, MemorySegment dst, long count) {
        if (srcs.length == 0) throw new IllegalArgumentException("reduce needs at least one source");
        for (long done = 0; done < count; done += BLOCK) {
            int n = (int) Math.min(BLOCK, count - done);
            switch (dtype) {
                case FP32, BF16, FP16 -> floatBlock(dtype, op, srcs, dst, done, n);
                case INT32 -> intBlock(op, srcs, dst, done, n);
                case INT64 -> longBlock(op, srcs, dst, done, n);
                default -> throw new IllegalArgumentException("reductions support INT32, INT64, FP32, FP16, BF16, not " + dtype);
            }
        }
    }

    private void floatBlock(DType dt, ReduceOp op, MemorySegment[] srcs, MemorySegment dst, long first, int n) {
        long off = first * dt.byteSize();
        loadFloats(dt, srcs[0], off, fa, n);
        for (int s = 1; s < srcs.length; s++) {
            loadFloats(dt, srcs[s], off, fb, n);
            combine(op, fa, fb, n);
        }
        switch (dt) {
            case FP32 -> MemorySegment.copy(fa, 0, dst, ValueLayout.JAVA_FLOAT_UNALIGNED, off, n);
            case BF16 -> {
                for (int i = 0; i < n; i++) sa[i] = HalfFloats.floatToBf16(fa[i]);
                MemorySegment.copy(sa, 0, dst, ValueLayout.JAVA_SHORT_UNALIGNED, off, n);
            }
            default -> {
                for (int i = 0; i < n; i++) sa[i] = Float.floatToFloat16(fa[i]);
                MemorySegment.copy(sa, 0, dst, ValueLayout.JAVA_SHORT_UNALIGNED, off, n);
            }
        }
    }

    private void loadFloats(DType dt, MemorySegment src, long off, float[] to, int n) {
        switch (dt) {
            case FP32 -> MemorySegment.copy(src, ValueLayout.JAVA_FLOAT_UNALIGNED, off, to, 0, n);
            case BF16 -> {
                MemorySegment.copy(src, ValueLayout.JAVA_SHORT_UNALIGNED, off, sa, 0, n);
                for (int i = 0; i < n; i++) to[i] = Float.intBitsToFloat(sa[i] << 16);
            }
            default -> {
                MemorySegment.copy(src, ValueLayout.JAVA_SHORT_UNALIGNED, off, sa, 0, n);
                for (int i = 0; i < n; i++) to[i] = Float.float16ToFloat(sa[i]);
            }
        }
    }

    private static void combine(ReduceOp op, float[] a, float[] b, int n) {
        switch (op) {
            case SUM -> { for (int i = 0; i < n; i++) a[i] += b[i]; }
            case PROD -> { for (int i = 0; i < n; i++) a[i] *= b[i]; }
            case MIN -> { for (int i = 0; i < n; i++) a[i] = Math.min(a[i], b[i]); }
            case MAX -> { for (int i = 0; i < n; i++) a[i] = Math.max(a[i], b[i]); }
        }
    }

    private void intBlock(ReduceOp op, MemorySegment[] srcs, MemorySegment dst, long first, int n) {
        long off = first * 4;
        MemorySegment.copy(srcs[0], ValueLayout.JAVA_INT_UNALIGNED, off, ia, 0, n);
        for (int s = 1; s < srcs.length; s++) {
            MemorySegment.copy(srcs[s], ValueLayout.JAVA_INT_UNALIGNED, off, ib, 0, n);
            switch (op) {
                case SUM -> { for (int i = 0; i < n; i++) ia[i] += ib[i]; }
                case PROD -> { for (int i = 0; i < n; i++) ia[i] *= ib[i]; }
                case MIN -> { for (int i = 0; i < n; i++) ia[i] = Math.min(ia[i], ib[i]); }
                case MAX -> { for (int i = 0; i < n; i++) ia[i] = Math.max(ia[i], ib[i]); }
            }
        }
        MemorySegment.copy(ia, 0, dst, ValueLayout.JAVA_INT_UNALIGNED, off, n);
    }

    private void longBlock(ReduceOp op, MemorySegment[] srcs, MemorySegment dst, long first, int n) {
        long off = first * 8;
        MemorySegment.copy(srcs[0], ValueLayout.JAVA_LONG_UNALIGNED, off, la, 0, n);
        for (int s = 1; s < srcs.length; s++) {
            MemorySegment.copy(srcs[s], ValueLayout.JAVA_LONG_UNALIGNED, off, lb, 0, n);
            switch (op) {
                case SUM -> { for (int i = 0; i < n; i++) la[i] += lb[i]; }
                case PROD -> { for (int i = 0; i < n; i++) la[i] *= lb[i]; }
                case MIN -> { for (int i = 0; i < n; i++) la[i] = Math.min(la[i], lb[i]); }
                case MAX -> { for (int i = 0; i < n; i++) la[i] = Math.max(la[i], lb[i]); }
            }
        }
        MemorySegment.copy(la, 0, dst, ValueLayout.JAVA_LONG_UNALIGNED, off, n);
    }
}
