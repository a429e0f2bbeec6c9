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
                default ->
                    throw new IllegalArgumentException(
                            "reductions support INT32, INT64, FP32, FP16, BF16, not " + dtype);
            }
        }
    }

    /** Bytes per element of a partial result: BF16 and FP16 partials stay FP32 (the flat fold rounds once, at the end). */
    static int partialBytes(DType dtype) {
        return dtype == DType.BF16 || dtype == DType.FP16 ? 4 : dtype.byteSize();
    }

    /**
     * One link of a fold continued across calls: {@code dst = ((acc op src[0]) op src[1]) ...}, with
     * {@code acc} (null for the first link) a partial from {@link #partialBytes} wide elements. A
     * {@code partial} result is written that wide too; the last link writes {@code dtype}. Chained links
     * give the same bits as one {@link #reduce} over all sources, as every step is the same float operation.
     */
    void reduceLink(
            DType dtype,
            ReduceOp op,
            MemorySegment acc,
            MemorySegment[] srcs,
            MemorySegment dst,
            long count,
            boolean partial) {
        boolean half = partialBytes(dtype) != dtype.byteSize();
        if (!half) {
            MemorySegment[] all = srcs;
            if (acc != null) {
                all = new MemorySegment[srcs.length + 1];
                all[0] = acc;
                System.arraycopy(srcs, 0, all, 1, srcs.length);
            }
            reduce(dtype, op, all, dst, count);
            return;
        }
        for (long done = 0; done < count; done += BLOCK) {
            int n = (int) Math.min(BLOCK, count - done);
            long off = done * dtype.byteSize();
            int s = 0;
            if (acc != null) MemorySegment.copy(acc, ValueLayout.JAVA_FLOAT_UNALIGNED, done * 4, fa, 0, n);
            else loadFloats(dtype, srcs[s++], off, fa, n);
            for (; s < srcs.length; s++) {
                loadFloats(dtype, srcs[s], off, fb, n);
                combine(op, fa, fb, n);
            }
            if (partial) MemorySegment.copy(fa, 0, dst, ValueLayout.JAVA_FLOAT_UNALIGNED, done * 4, n);
            else store(dtype, dst, off, n);
        }
    }

    private void floatBlock(DType dt, ReduceOp op, MemorySegment[] srcs, MemorySegment dst, long first, int n) {
        long off = first * dt.byteSize();
        loadFloats(dt, srcs[0], off, fa, n);
        for (int s = 1; s < srcs.length; s++) {
            loadFloats(dt, srcs[s], off, fb, n);
            combine(op, fa, fb, n);
        }
        store(dt, dst, off, n);
    }

    /** Writes {@code fa[0..n)} to {@code dst[off..]} as {@code dt}, rounding half types to nearest even. */
    private void store(DType dt, MemorySegment dst, long off, int n) {
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
            case SUM -> {
                for (int i = 0; i < n; i++) a[i] += b[i];
            }
            case PROD -> {
                for (int i = 0; i < n; i++) a[i] *= b[i];
            }
            case MIN -> {
                for (int i = 0; i < n; i++) a[i] = Math.min(a[i], b[i]);
            }
            case MAX -> {
                for (int i = 0; i < n; i++) a[i] = Math.max(a[i], b[i]);
            }
        }
    }

    private void intBlock(ReduceOp op, MemorySegment[] srcs, MemorySegment dst, long first, int n) {
        long off = first * 4;
        MemorySegment.copy(srcs[0], ValueLayout.JAVA_INT_UNALIGNED, off, ia, 0, n);
        for (int s = 1; s < srcs.length; s++) {
            MemorySegment.copy(srcs[s], ValueLayout.JAVA_INT_UNALIGNED, off, ib, 0, n);
            switch (op) {
                case SUM -> {
                    for (int i = 0; i < n; i++) ia[i] += ib[i];
                }
                case PROD -> {
                    for (int i = 0; i < n; i++) ia[i] *= ib[i];
                }
                case MIN -> {
                    for (int i = 0; i < n; i++) ia[i] = Math.min(ia[i], ib[i]);
                }
                case MAX -> {
                    for (int i = 0; i < n; i++) ia[i] = Math.max(ia[i], ib[i]);
                }
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
                case SUM -> {
                    for (int i = 0; i < n; i++) la[i] += lb[i];
                }
                case PROD -> {
                    for (int i = 0; i < n; i++) la[i] *= lb[i];
                }
                case MIN -> {
                    for (int i = 0; i < n; i++) la[i] = Math.min(la[i], lb[i]);
                }
                case MAX -> {
                    for (int i = 0; i < n; i++) la[i] = Math.max(la[i], lb[i]);
                }
            }
        }
        MemorySegment.copy(la, 0, dst, ValueLayout.JAVA_LONG_UNALIGNED, off, n);
    }
}
