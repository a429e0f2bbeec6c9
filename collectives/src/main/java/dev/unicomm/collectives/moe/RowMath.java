package dev.unicomm.collectives.moe;

import java.lang.foreign.MemorySegment;

/**
 * fp32 accumulation of BF16 rows read straight from (peer) memory, and rounding back to BF16
 * (nearest, ties to even). Uses the JDK's Vector API where the JVM was started with
 * {@code --add-modules jdk.incubator.vector} (several times faster: the conversions do not
 * auto-vectorise), else plain loops; both give bit-identical results.
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

    /** The fastest implementation this JVM can run. */
    RowMath BEST = Selection.best();

    /** Picks the implementation once. */
    final class Selection {
        private Selection() {}

        static RowMath best() {
            if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) return new ScalarRowMath();
            try {
                return warmUp(new VectorRowMath());
            } catch (LinkageError | RuntimeException e) {
                return new ScalarRowMath();
            }
        }

        /** Vector API code is very slow until the JIT compiles it: run it on a small row first (~0.1 s). */
        private static RowMath warmUp(RowMath m) {
            float[] acc = new float[256];
            java.lang.foreign.MemorySegment row = java.lang.foreign.Arena.ofAuto().allocate(512);
            for (int i = 0; i < 20_000; i++) {
                m.set(acc, row, 0, 256);
                m.add(acc, row, 0, 256);
                m.addScaled(acc, row, 0, 0.5f, 256);
                m.round(acc, row, 0, 256);
            }
            return m;
        }
    }
}
