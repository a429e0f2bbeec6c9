package dev.unicomm.collectives.fp8;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link ScalarFp8}'s steps lane-wise on the Vector API, in the CPU's preferred width (16 lanes of
 * fp32 with AVX-512, 8 with AVX2). The block maximum is taken on the BF16 bit patterns with the
 * sign cleared: for non-NaN values their integer order is the order of the absolute values, and
 * infinity and NaN patterns are larger than every finite one, so blocks holding them are found by
 * one comparison and quantised by the plain path. The same pass takes the block minimum: when even
 * the smallest scaled value is a normal e4m3 number (almost every block of real activations) the
 * subnormal steps are skipped.
 *
 * <p>Values are read in pairs, one int per two BF16 channels, and each half is encoded in its own
 * int lanes on the absolute value (the scale is positive, so signs are copied from the input
 * bits); the two codes are packed into one short lane. That halves the widening and narrowing
 * conversions, which cost more than the arithmetic on AVX2.
 */
final class VectorFp8 implements BlockQuantiser {
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final VectorSpecies<Integer> I = IntVector.SPECIES_PREFERRED.length() > 16
            ? IntVector.SPECIES_512 : IntVector.SPECIES_PREFERRED;
    private static final int LANES = I.length();
    private static final VectorSpecies<Short> PAIRS = VectorSpecies.of(short.class, VectorShape.forBitSize(LANES * 16));
    private static final VectorSpecies<Short> WIDE = VectorSpecies.of(short.class, I.vectorShape()); // for the extremes

    /** Smallest normal e4m3 value, 2^-6: a block whose scaled minimum reaches it has no subnormal codes. */
    private static final float MIN_NORMAL = 0x1p-6f;
    /** Rounds fp32 bits to 3 mantissa bits (the carry moves into the exponent) with the exponent bias change folded in. */
    private static final int ROUND = 0x7FFFF - (960 << 20);
    /** 2^14: adding it rounds a value below 2^-6 to a multiple of 2^-9, the e4m3 subnormal step (its ulp). */
    private static final float SUB_GRID = 0x1p14f;
    private static final int SUB_GRID_BITS = Float.floatToRawIntBits(SUB_GRID);

    private static final ScalarFp8 PLAIN = new ScalarFp8();

    VectorFp8() {
        if (LANES < 8) throw new UnsupportedOperationException("vector width " + LANES + " fp32 lanes is too narrow");
    }

    @Override public void quantise(MemorySegment src, long srcOffset, MemorySegment codes, long codesOffset,
                                   MemorySegment scales, long scalesOffset, int blocks) {
        for (int b = 0; b < blocks; b++) {
            long in = srcOffset + 2L * b * Fp8Quantiser.BLOCK, out = codesOffset + (long) b * Fp8Quantiser.BLOCK;
            ShortVector max = ShortVector.zero(WIDE), min = ShortVector.broadcast(WIDE, Short.MAX_VALUE);
            for (int c = 0; c < Fp8Quantiser.BLOCK; c += WIDE.length()) {
                ShortVector a = ShortVector.fromMemorySegment(WIDE, src, in + 2L * c, LE).and((short) 0x7FFF);
                max = max.max(a);
                min = min.min(a);
            }
            int maxBits = max.reduceLanes(VectorOperators.MAX);
            if (maxBits >= 0x7F80) { // an infinity or NaN in the block: rare, left to the plain definition
                PLAIN.quantise(src, in, codes, out, scales, scalesOffset + 4L * b, 1);
                continue;
            }
            float amax = Math.max(Float.intBitsToFloat(maxBits << 16), Fp8Quantiser.MIN_AMAX);
            float mul = Fp8Quantiser.MAX / amax;
            float smallest = Float.intBitsToFloat(min.reduceLanes(VectorOperators.MIN) << 16) * mul;
            if (smallest >= MIN_NORMAL) encodeNormalBlock(src, in, codes, out, mul);
            else encodeBlock(src, in, codes, out, mul);
            scales.set(ValueLayout.JAVA_FLOAT_UNALIGNED, scalesOffset + 4L * b, amax / Fp8Quantiser.MAX);
        }
    }

    /*
     * Both encoders work on blocks whose values are finite, so every scaled value is at most 448 plus
     * rounding: no NaN lanes and no saturation to handle. Each is one method with no vector
     * arguments or vector-taking helpers: a helper the JIT declines to inline (it does for callees
     * already compiled into large code) would box every vector it is passed.
     *
     * Packing: the two codes of each pair go into one short (even channel in the low byte) with the
     * input's signs (bit 15 -> bit 7 for the even channel, bit 31 -> bit 15 for the odd one; bits
     * above 15 are dropped by the narrowing).
     */

    /** A block whose scaled values are all normal e4m3 numbers (at least 2^-6): rounding only. */
    private static void encodeNormalBlock(MemorySegment src, long in, MemorySegment codes, long out, float mul) {
        for (int c = 0; c < Fp8Quantiser.BLOCK; c += 2 * LANES) {
            IntVector pair = IntVector.fromMemorySegment(I, src, in + 2L * c, LE);
            IntVector even = pair.and(0x7FFF).lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().mul(mul).reinterpretAsInts();
            IntVector odd = pair.and(0x7FFF0000).reinterpretAsFloats().mul(mul).reinterpretAsInts();
            even = even.add(even.lanewise(VectorOperators.LSHR, 20).and(1)).add(ROUND).lanewise(VectorOperators.ASHR, 20);
            odd = odd.add(odd.lanewise(VectorOperators.LSHR, 20).and(1)).add(ROUND).lanewise(VectorOperators.ASHR, 20);
            IntVector signs = pair.and(0x80008000);
            IntVector both = even.or(odd.lanewise(VectorOperators.LSHL, 8))
                    .or(signs.lanewise(VectorOperators.LSHR, 8)).or(signs.lanewise(VectorOperators.LSHR, 16));
            ((ShortVector) both.convertShape(VectorOperators.I2S, PAIRS, 0)).intoMemorySegment(codes, out + c, LE);
        }
    }

    /**
     * Any finite block: each lane takes the normal or the subnormal rounding, whichever applies. The
     * normal rounding gives at most 8 for values below 2^-6 (negative for tiny ones) and the
     * subnormal rounding at least 8 from 2^-6 on, with both 8 at 2^-6, so
     * {@code max(normal, min(subnormal, 8))} picks the one that applies without a mask.
     */
    private static void encodeBlock(MemorySegment src, long in, MemorySegment codes, long out, float mul) {
        for (int c = 0; c < Fp8Quantiser.BLOCK; c += 2 * LANES) {
            IntVector pair = IntVector.fromMemorySegment(I, src, in + 2L * c, LE);
            FloatVector evenF = pair.and(0x7FFF).lanewise(VectorOperators.LSHL, 16).reinterpretAsFloats().mul(mul);
            FloatVector oddF = pair.and(0x7FFF0000).reinterpretAsFloats().mul(mul);
            IntVector even = evenF.reinterpretAsInts(), odd = oddF.reinterpretAsInts();
            IntVector evenNormal = even.add(even.lanewise(VectorOperators.LSHR, 20).and(1)).add(ROUND).lanewise(VectorOperators.ASHR, 20);
            IntVector oddNormal = odd.add(odd.lanewise(VectorOperators.LSHR, 20).and(1)).add(ROUND).lanewise(VectorOperators.ASHR, 20);
            IntVector evenSub = evenF.add(SUB_GRID).reinterpretAsInts().sub(SUB_GRID_BITS).min(8);
            IntVector oddSub = oddF.add(SUB_GRID).reinterpretAsInts().sub(SUB_GRID_BITS).min(8);
            IntVector signs = pair.and(0x80008000);
            IntVector both = evenNormal.max(evenSub).or(oddNormal.max(oddSub).lanewise(VectorOperators.LSHL, 8))
                    .or(signs.lanewise(VectorOperators.LSHR, 8)).or(signs.lanewise(VectorOperators.LSHR, 16));
            ((ShortVector) both.convertShape(VectorOperators.I2S, PAIRS, 0)).intoMemorySegment(codes, out + c, LE);
        }
    }
}
