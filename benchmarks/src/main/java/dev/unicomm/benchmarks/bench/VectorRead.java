package dev.unicomm.benchmarks.bench;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The combine bound's read pass with the Vector API (loaded only where the JVM has
 * {@code jdk.incubator.vector}): wide loads read memory about a quarter faster here than 8-byte
 * loads, and a bound must be at least as fast as any combine's own (vector) reads.
 */
final class VectorRead {
    private static final VectorSpecies<Long> S = LongVector.SPECIES_PREFERRED;

    private VectorRead() {}

    /** Every byte of {@code seg[0, n)} read once, folded into one word. */
    static long readAll(MemorySegment seg, long n) {
        LongVector a = LongVector.zero(S), b = LongVector.zero(S);
        long step = S.vectorByteSize(), i = 0;
        for (; i + 2 * step <= n; i += 2 * step) {
            a = a.lanewise(VectorOperators.XOR, LongVector.fromMemorySegment(S, seg, i, ByteOrder.LITTLE_ENDIAN));
            b = b.lanewise(VectorOperators.XOR, LongVector.fromMemorySegment(S, seg, i + step, ByteOrder.LITTLE_ENDIAN));
        }
        long fold = a.lanewise(VectorOperators.XOR, b).reduceLanes(VectorOperators.XOR);
        return fold ^ MoeCopyBound.readScalar(seg, i, n);
    }
}
