package dev.unicomm.collectives.fp8;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link ScalarFp8}'s steps lane-wise on the Vector API, in the CPU's preferred width (16 lanes of
 * fp32 with AVX-512, 8 with AVX2). The block maximum is taken on the BF16 bit patterns with the
 * sign cleared: for non-NaN values their integer order is the order of the absolute values, and
 * infinity and NaN patterns are larger than every finite one, so blocks holding them are found by
 * one comparison and quantised by the plain path.
 */
final class VectorFp8 implements BlockQuantiser {
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED.length() > 16
            ? IntVector.SPECIES_512 : IntVector.SPECIES_PREFERRED;
    private static final int LANES = I.length();
    private static final VectorSpecies<Float> F = VectorSpecies.of(float.class, I.vectorShape());
    private static final VectorSpecies<Short> S = VectorSpecies.of(short.class, VectorShape.forBitSize(LANES * 16));
    private static final VectorSpecies<Byte> B = VectorSpecies.of(byte.class, VectorShape.forBitSize(LANES * 8));
    private static final VectorSpecies<Short> WIDE = VectorSpecies.of(short.class, I.vectorShape()); // for the maximum

    private static final ScalarFp8 PLAIN = new ScalarFp8();

    VectorFp8() {
        if (LANES < 8) throw new UnsupportedOperationException("vector width " + LANES + " fp32 lanes is too narrow");
    }

    @Override public void quantise(MemorySegment src, long srcOffset, MemorySegment codes, long codesOffset,
                                   MemorySegment scales, long scalesOffset, int blocks) {
        for (int b = 0; b < blocks; b++) {
            long in = srcOffset + 2L * b * Fp8Quantiser.BLOCK, out = codesOffset + (long) b * Fp8Quantiser.BLOCK;
            ShortVector max = ShortVector.zero(WIDE);
            for (int c = 0; c < Fp8Quantiser.BLOCK; c += WIDE.length())
                max = max.max(ShortVector.fromMemorySegment(WIDE, src, in + 2L * c, LE).and((short) 0x7FFF));
            int maxBits = max.reduceLanes(VectorOperators.MAX);
            if (maxBits >= 0x7F80) { // an infinity or NaN in the block: rare, left to the plain definition
                PLAIN.quantise(src, in, codes, out, scales, scalesOffset + 4L * b, 1);
                continue;
            }
            float amax = Math.max(Float.intBitsToFloat(maxBits << 16), Fp8Quantiser.MIN_AMAX);
            encodeBlock(src, in, codes, out, Fp8Quantiser.MAX / amax);
            scales.set(ValueLayout.JAVA_FLOAT_UNALIGNED, scalesOffset + 4L * b, amax / Fp8Quantiser.MAX);
        }
    }

    /**
     * {@link ScalarFp8#encode}{@code (x * mul)} lane-wise for a block whose values are finite, so
     * every product is at most 448 plus rounding: no NaN lanes and no saturation to handle. Only
     * each lane's low byte is stored, which saves two subtractions: the subnormal result keeps the
     * 2^23 trick's exponent bits above its code, the normal one has its bias folded into the rounding
     * constant. One method with no vector arguments, so the JIT keeps every vector in registers.
     */
    private static void encodeBlock(MemorySegment src, long in, MemorySegment codes, long out, float mul) {
        for (int c = 0; c < Fp8Quantiser.BLOCK; c += LANES) {
            ShortVector s = ShortVector.fromMemorySegment(S, src, in + 2L * c, LE);
            IntVector bits = ((IntVector) s.convertShape(VectorOperators.S2I, I, 0)).lanewise(VectorOperators.LSHL, 16)
                    .reinterpretAsFloats().mul(mul).reinterpretAsInts();
            IntVector abits = bits.and(0x7FFFFFFF);
            IntVector normal = abits.add(abits.lanewise(VectorOperators.LSHR, 20).and(1)).add(0x7FFFF - (960 << 20))
                    .lanewise(VectorOperators.LSHR, 20);
            IntVector sub = abits.reinterpretAsFloats().mul(512f).add(0x1p23f).reinterpretAsInts();
            VectorMask<Integer> subnormal = abits.compare(VectorOperators.LT, 0x3C800000);
            IntVector code = normal.blend(sub, subnormal).or(bits.lanewise(VectorOperators.LSHR, 24).and(0x80));
            ((ByteVector) code.convertShape(VectorOperators.I2B, B, 0)).intoMemorySegment(codes, out + c, LE);
        }
    }
}
