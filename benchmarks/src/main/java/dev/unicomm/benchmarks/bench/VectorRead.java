package dev.unicomm.benchmarks.bench;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.LongVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The combine bound's read pass with the Vector API (loaded only where the JVM has
 * {@code jdk.incubator.vector}): wide loads read memory faster here than 8-byte loads (6.6
 * against 5.2 GB/s, one stream), and a bound must be at least as fast as any combine's own (vector) reads.
 */
final class VectorRead {
    private static final VectorSpecies<Long> S = LongVector.SPECIES_PREFERRED;

    private VectorRead() {}

    /**
     * {@code len} bytes of each of {@code segs[0, n)} from {@code from[k]}, read all at once: eight
     * vectors of one, then eight of the next (a turn of 256 bytes with AVX2). Finer turns keep every
     * stream's prefetch going (four streams read 9.5 GB/s on the 2-core VM, against 7 with 2 KiB turns
     * and 6.5 one after another).
     */
    static long readStreams(MemorySegment[] segs, long[] from, int n, long len) {
        LongVector a = LongVector.zero(S);
        long step = S.vectorByteSize(), turn = 8 * step, whole = len - len % turn, fold = 0;
        for (long i = 0; i < whole; i += turn) {
            for (int k = 0; k < n; k++) {
                MemorySegment s = segs[k];
                long o = from[k] + i;
                a = a.lanewise(
                        VectorOperators.XOR,
                        LongVector.fromMemorySegment(S, s, o, ByteOrder.LITTLE_ENDIAN)
                                .lanewise(
                                        VectorOperators.XOR,
                                        LongVector.fromMemorySegment(S, s, o + step, ByteOrder.LITTLE_ENDIAN))
                                .lanewise(
                                        VectorOperators.XOR,
                                        LongVector.fromMemorySegment(S, s, o + 2 * step, ByteOrder.LITTLE_ENDIAN))
                                .lanewise(
                                        VectorOperators.XOR,
                                        LongVector.fromMemorySegment(S, s, o + 3 * step, ByteOrder.LITTLE_ENDIAN))
                                .lanewise(
                                        VectorOperators.XOR,
                                        LongVector.fromMemorySegment(S, s, o + 4 * step, ByteOrder.LITTLE_ENDIAN))
                                .lanewise(
                                        VectorOperators.XOR,
                                        LongVector.fromMemorySegment(S, s, o + 5 * step, ByteOrder.LITTLE_ENDIAN))
                                .lanewise(
                                        VectorOperators.XOR,
                                        LongVector.fromMemorySegment(S, s, o + 6 * step, ByteOrder.LITTLE_ENDIAN))
                                .lanewise(
                                        VectorOperators.XOR,
                                        LongVector.fromMemorySegment(S, s, o + 7 * step, ByteOrder.LITTLE_ENDIAN)));
            }
        }
        for (int k = 0; k < n; k++) fold ^= MoeCopyBound.readScalar(segs[k], from[k] + whole, from[k] + len);
        return fold ^ a.reduceLanes(VectorOperators.XOR);
    }
}
