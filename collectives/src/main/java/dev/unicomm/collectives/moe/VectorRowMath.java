package dev.unicomm.collectives.moe;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/** {@link RowMath} on the Vector API: 8 lanes of fp32 per step (AVX2), scalar tails. */
final class VectorRowMath implements RowMath {
    private static final VectorSpecies<Float> F = FloatVector.SPECIES_256;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_256;
    private static final VectorSpecies<Short> S = ShortVector.SPECIES_128;
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final ScalarRowMath TAIL = new ScalarRowMath();

    private static FloatVector load(MemorySegment seg, long off, int i) {
        ShortVector s = ShortVector.fromMemorySegment(S, seg, off + 2L * i, LE);
        return ((IntVector) s.convertShape(VectorOperators.S2I, I, 0))
                .lanewise(VectorOperators.LSHL, 16)
                .reinterpretAsFloats();
    }

    private static int vectorPart(int n) {
        return n - n % 8;
    }

    @Override
    public void set(float[] acc, MemorySegment seg, long off, int n) {
        int m = vectorPart(n);
        for (int i = 0; i < m; i += 8) load(seg, off, i).intoArray(acc, i);
        for (int i = m; i < n; i++)
            acc[i] = Float.intBitsToFloat(
                    seg.get(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, off + 2L * i) << 16);
    }

    @Override
    public void add(float[] acc, MemorySegment seg, long off, int n) {
        int m = vectorPart(n);
        for (int i = 0; i < m; i += 8)
            FloatVector.fromArray(F, acc, i).add(load(seg, off, i)).intoArray(acc, i);
        for (int i = m; i < n; i++)
            acc[i] += Float.intBitsToFloat(
                    seg.get(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, off + 2L * i) << 16);
    }

    @Override
    public void addScaled(float[] acc, MemorySegment seg, long off, float w, int n) {
        int m = vectorPart(n);
        for (int i = 0; i < m; i += 8)
            FloatVector.fromArray(F, acc, i).add(load(seg, off, i).mul(w)).intoArray(acc, i);
        for (int i = m; i < n; i++)
            acc[i] += w
                    * Float.intBitsToFloat(
                            seg.get(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, off + 2L * i) << 16);
    }

    @Override
    public void round(float[] acc, MemorySegment seg, long off, int n) {
        int m = vectorPart(n);
        for (int i = 0; i < m; i += 8) {
            IntVector b = FloatVector.fromArray(F, acc, i).reinterpretAsInts();
            IntVector high = b.lanewise(VectorOperators.LSHR, 16);
            IntVector rounded = b.add(0x7FFF).add(high.and(1)).lanewise(VectorOperators.LSHR, 16);
            VectorMask<Integer> nan = b.and(0x7FFFFFFF).compare(VectorOperators.GT, 0x7F800000);
            IntVector r = rounded.blend(high.or(0x40), nan);
            ((ShortVector) r.convertShape(VectorOperators.I2S, S, 0)).intoMemorySegment(seg, off + 2L * i, LE);
        }
        if (m < n) TAIL.round(java.util.Arrays.copyOfRange(acc, m, n), seg, off + 2L * m, n - m);
    }

    /**
     * One pass for 2 to 4 rows (a token's sources on up to 4 ranks): the rows' lanes are summed in
     * registers and rounded, no fp32 row in memory between. No loop over the rows inside the lane loop:
     * that ran 3-4x slower once the JIT had seen several counts (measured).
     */
    @Override
    public void sum(
            MemorySegment[] segs, long[] offs, int count, float[] scratch, MemorySegment out, long outOff, int n) {
        if (count < 2 || count > 4) {
            RowMath.super.sum(segs, offs, count, scratch, out, outOff, n);
            return;
        }
        int m = vectorPart(n);
        MemorySegment s0 = segs[0], s1 = segs[1], s2 = count > 2 ? segs[2] : s0, s3 = count > 3 ? segs[3] : s0;
        long o0 = offs[0], o1 = offs[1], o2 = count > 2 ? offs[2] : o0, o3 = count > 3 ? offs[3] : o0;
        for (int i = 0; i < m; i += 8) { // the count tests are loop-invariant: the JIT unswitches them
            FloatVector a = load(s0, o0, i).add(load(s1, o1, i));
            if (count > 2) a = a.add(load(s2, o2, i));
            if (count > 3) a = a.add(load(s3, o3, i));
            // round() on the lanes, written out here: a helper taking a vector would box it unless inlined
            IntVector b = a.reinterpretAsInts();
            IntVector high = b.lanewise(VectorOperators.LSHR, 16);
            IntVector rounded = b.add(0x7FFF).add(high.and(1)).lanewise(VectorOperators.LSHR, 16);
            VectorMask<Integer> nan = b.and(0x7FFFFFFF).compare(VectorOperators.GT, 0x7F800000);
            IntVector r = rounded.blend(high.or(0x40), nan);
            ((ShortVector) r.convertShape(VectorOperators.I2S, S, 0)).intoMemorySegment(out, outOff + 2L * i, LE);
        }
        if (m < n) {
            TAIL.set(scratch, s0, o0 + 2L * m, n - m);
            for (int j = 1; j < count; j++) TAIL.add(scratch, segs[j], offs[j] + 2L * m, n - m);
            TAIL.round(scratch, out, outOff + 2L * m, n - m);
        }
    }

    /**
     * Rows four at a time, in registers: a fp32 row in {@code scratch} carries the sum between groups
     * (two passes for top-8 instead of nine). Same arithmetic order as the default.
     */
    @Override
    public void weightedSum(
            MemorySegment[] segs,
            long[] offs,
            float[] w,
            int count,
            float[] scratch,
            MemorySegment out,
            long outOff,
            int n) {
        int m = vectorPart(n);
        if (count == 0 || m < n) { // no rows, or a width that is not a multiple of 8 (never at real sizes)
            RowMath.super.weightedSum(segs, offs, w, count, scratch, out, outOff, n);
            return;
        }
        for (int g = 0; g < count; g += 4) {
            int c = Math.min(4, count - g);
            boolean first = g == 0, last = g + 4 >= count;
            MemorySegment s0 = segs[g],
                    s1 = c > 1 ? segs[g + 1] : s0,
                    s2 = c > 2 ? segs[g + 2] : s0,
                    s3 = c > 3 ? segs[g + 3] : s0;
            long o0 = offs[g],
                    o1 = c > 1 ? offs[g + 1] : o0,
                    o2 = c > 2 ? offs[g + 2] : o0,
                    o3 = c > 3 ? offs[g + 3] : o0;
            float w0 = w[g], w1 = c > 1 ? w[g + 1] : 0f, w2 = c > 2 ? w[g + 2] : 0f, w3 = c > 3 ? w[g + 3] : 0f;
            for (int i = 0; i < m; i += 8) { // every test below is loop-invariant
                FloatVector a = first ? FloatVector.zero(F) : FloatVector.fromArray(F, scratch, i);
                a = a.add(load(s0, o0, i).mul(w0));
                if (c > 1) a = a.add(load(s1, o1, i).mul(w1));
                if (c > 2) a = a.add(load(s2, o2, i).mul(w2));
                if (c > 3) a = a.add(load(s3, o3, i).mul(w3));
                if (!last) {
                    a.intoArray(scratch, i);
                    continue;
                }
                IntVector b = a.reinterpretAsInts(); // round(), written out (see sum)
                IntVector high = b.lanewise(VectorOperators.LSHR, 16);
                IntVector rounded = b.add(0x7FFF).add(high.and(1)).lanewise(VectorOperators.LSHR, 16);
                VectorMask<Integer> nan = b.and(0x7FFFFFFF).compare(VectorOperators.GT, 0x7F800000);
                IntVector r = rounded.blend(high.or(0x40), nan);
                ((ShortVector) r.convertShape(VectorOperators.I2S, S, 0)).intoMemorySegment(out, outOff + 2L * i, LE);
            }
        }
    }
}
