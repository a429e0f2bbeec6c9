package dev.unicomm.collectives.fp8;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.ByteVector;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
import jdk.incubator.vector.ShortVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorShape;
import jdk.incubator.vector.VectorSpecies;

/**
 * {@link ScalarFp8}'s steps lane-wise on the Vector API, in the CPU's preferred width (16 lanes of
 * fp32 with AVX-512, 8 with AVX2), one row at a time in two passes:
 *
 * <ol>
 *   <li>Scan: each block's largest and smallest absolute value, taken on the BF16 bit patterns with
 *       the sign cleared (for non-NaN values their integer order is the order of the absolute
 *       values; infinity and NaN patterns are larger than every finite one, so blocks holding them
 *       are found by one comparison). The largest gives the block's scale and multiplier; the lanes
 *       of the smallest are compared with a threshold derived from it, which tells whether every
 *       scaled value is a normal e4m3 number (almost every block of real activations), in which
 *       case the subnormal steps are skipped. The threshold errs on the safe side (a block within
 *       one BF16 step of it takes the subnormal steps, which give the same codes), and costs one
 *       comparison instead of a second reduction across lanes.</li>
 *   <li>Encode: one flat loop over the whole row, two vectors (64 input bytes, one cache line) per
 *       step, the block's multiplier read from a small array. Per-block encode calls cost about a
 *       third more (measured): a call, a short loop and its bounds checks per 128 channels. The
 *       loop also reads one byte of the next row per step: otherwise the row's memory reads
 *       (pass 1) and the arithmetic (pass 2) take turns instead of overlapping, and rows beyond the
 *       caches run at about the sum of the two times (measured: 1.9 GB/s, against 3.7 GB/s in
 *       cache and 3.9 GB/s for a plain copy).</li>
 * </ol>
 * Blocks holding an infinity or NaN are encoded with garbage by pass 2 and then rewritten by the
 * plain path. Values are read in pairs, one int per two BF16 channels, and each half is encoded in
 * its own int lanes; the two codes go to bytes 0 and 2 of the pair's int, and one narrowing of
 * shorts to bytes (which keeps bytes 0 and 2) writes them. That halves the widening and narrowing
 * conversions, which cost more than the arithmetic on AVX2.
 */
final class VectorFp8 implements BlockQuantiser {
    private static final ByteOrder LE = ByteOrder.LITTLE_ENDIAN;
    private static final VectorSpecies<Integer> I =
            IntVector.SPECIES_PREFERRED.length() > 16 ? IntVector.SPECIES_512 : IntVector.SPECIES_PREFERRED;
    private static final int LANES = I.length();
    /** Channels per vector: one int vector of channel pairs, or one short vector of the same width. */
    private static final int STEP = 2 * LANES;
    /** One byte per channel of a vector of pairs: the narrowing's result. */
    private static final VectorSpecies<Byte> CODES = VectorSpecies.of(byte.class, VectorShape.forBitSize(LANES * 16));

    private static final VectorSpecies<Short> WIDE = VectorSpecies.of(short.class, I.vectorShape()); // for the extremes

    /**
     * Slightly above 2^-6 / 448 (by at least 2^-20 relatively): {@code |x| >= amax * THRESHOLD} guarantees
     * {@code |x| * (448 / amax) >= 2^-6}, the smallest normal e4m3 value, with every fp32 rounding on
     * the way (each at most 2^-24 relatively).
     */
    private static final float THRESHOLD = Math.nextUp((float) (0x1p-6 / 448 * (1 + 0x1p-20)));

    private static final int MIN_AMAX_BITS = Float.floatToRawIntBits(Fp8Quantiser.MIN_AMAX);
    /** Rounds fp32 bits to 3 mantissa bits (the carry moves into the exponent) with the exponent bias change folded in. */
    private static final int ROUND = 0x7FFFF - (960 << 20);
    /** 2^14: adding it rounds a value below 2^-6 to a multiple of 2^-9, the e4m3 subnormal step (its ulp). */
    private static final float SUB_GRID = 0x1p14f;

    private static final int SUB_GRID_BITS = Float.floatToRawIntBits(SUB_GRID);

    VectorFp8() {
        if (LANES < 8) throw new UnsupportedOperationException("vector width " + LANES + " fp32 lanes is too narrow");
    }

    @Override
    public void quantise(
            MemorySegment src,
            long srcOffset,
            MemorySegment codes,
            long codesOffset,
            MemorySegment scales,
            long scalesOffset,
            int rows,
            int blocksPerRow) {
        float[] muls = new float[blocksPerRow]; // one per call, reused for every row
        int hidden = blocksPerRow * Fp8Quantiser.BLOCK;
        int touched = 0;
        for (int r = 0; r < rows; r++) {
            long in = srcOffset + 2L * r * hidden,
                    out = codesOffset + (long) r * hidden,
                    at = scalesOffset + 4L * r * blocksPerRow;
            boolean special = scan(src, in, scales, at, muls, blocksPerRow);
            touched |= encode(src, in, codes, out, muls, hidden, r + 1 < rows ? in + 2L * hidden : in);
            if (special)
                for (int b = 0; b < blocksPerRow; b++)
                    if (Float.isNaN(muls[b]))
                        ScalarFp8.quantiseBlocks(src, in + 256L * b, codes, out + 128L * b, scales, at + 4L * b, 1);
        }
        sink = touched;
    }

    /** Keeps the JIT from dropping pass 2's reads of the next row (their values are never needed). */
    @SuppressWarnings("unused")
    private static int sink;

    /**
     * Pass 1 over one row: each block's scale into {@code scales}, its multiplier into {@code muls}
     * (negated when the block has subnormal codes, NaN when it holds an infinity or NaN). Returns
     * whether any block holds an infinity or NaN.
     */
    private static boolean scan(
            MemorySegment src, long in, MemorySegment scales, long scalesAt, float[] muls, int blocks) {
        boolean special = false;
        for (int b = 0; b < blocks; b++) {
            ShortVector max = ShortVector.zero(WIDE), min = ShortVector.broadcast(WIDE, Short.MAX_VALUE);
            long block = in + 2L * Fp8Quantiser.BLOCK * b;
            for (int c = 0; c < Fp8Quantiser.BLOCK; c += STEP) {
                ShortVector a = ShortVector.fromMemorySegment(WIDE, src, block + 2L * c, LE)
                        .and((short) 0x7FFF);
                max = max.max(a);
                min = min.min(a);
            }
            IntVector halves =
                    max.reinterpretAsInts(); // pairs of non-negative shorts: one step in int lanes, then the int
            // reduction
            int maxBits = halves.lanewise(VectorOperators.LSHR, 16)
                    .max(halves.and(0xFFFF))
                    .reduceLanes(VectorOperators.MAX);
            if (maxBits >= 0x7F80) { // rare: left to the plain definition after pass 2
                muls[b] = Float.NaN;
                special = true;
                continue;
            }
            float amax = Float.intBitsToFloat(
                    Math.max(maxBits << 16, MIN_AMAX_BITS)); // finite, non-negative: bits order as values
            float mul = Fp8Quantiser.MAX / amax;
            // Smallest BF16 pattern at or above amax * THRESHOLD: lanes at or above it scale to normal codes.
            int normalFrom = (Float.floatToRawIntBits(amax * THRESHOLD) + 0xFFFF) >>> 16;
            muls[b] = min.compare(VectorOperators.LT, (short) normalFrom).anyTrue() ? -mul : mul;
            scales.set(ValueLayout.JAVA_FLOAT_UNALIGNED, scalesAt + 4L * b, amax / Fp8Quantiser.MAX);
        }
        return special;
    }

    /*
     * Pass 2 works on blocks whose values are finite, so every scaled value is at most 448 plus
     * rounding: no NaN lanes and no saturation to handle. It is one method with no vector arguments
     * or vector-taking helpers: a helper the JIT declines to inline (it does for callees already
     * compiled into large code) would box every vector it is passed. The two vectors of a step are
     * written out by hand for the same reason; both lie in one block (128 is a multiple of 2 * STEP).
     *
     * Blocks without subnormal codes keep each value's sign in its fp32 bits: every scaled value is
     * at least 2^-6, so the rounding's additions stay below the sign bit, which the shift by 20
     * moves to bit 11, into the byte the narrowing drops.
     *
     * A block with subnormal codes takes the normal or the subnormal rounding per lane, whichever
     * applies, on the absolute values: the normal rounding gives at most 8 for values below 2^-6
     * (negative for tiny ones) and the subnormal rounding at least 8 from 2^-6 on, with both 8 at
     * 2^-6, so max(normal, min(subnormal, 8)) picks the one that applies without a mask.
     *
     * Packing: the even channel's code into byte 0 of the pair's int, the odd one's into byte 2, the
     * input's signs (bits 15 and 31) shifted to bits 7 and 23; the narrowing of shorts to bytes keeps
     * bytes 0 and 2.
     */
    private static int encode(
            MemorySegment src, long in, MemorySegment codes, long out, float[] muls, int hidden, long next) {
        int touched = 0;
        for (int c = 0; c < hidden; c += 2 * STEP) {
            float mul = muls[c >>> 7];
            touched |= src.get(
                    ValueLayout.JAVA_BYTE, next + 2L * c); // the next row's line: memory reads overlap the arithmetic
            IntVector pair = IntVector.fromMemorySegment(I, src, in + 2L * c, LE);
            IntVector pair2 = IntVector.fromMemorySegment(I, src, in + 2L * (c + STEP), LE);
            IntVector evenCode, oddCode, evenCode2, oddCode2;
            if (mul > 0) {
                IntVector even = pair.lanewise(VectorOperators.LSHL, 16)
                        .reinterpretAsFloats()
                        .mul(mul)
                        .reinterpretAsInts();
                IntVector odd =
                        pair.and(0xFFFF0000).reinterpretAsFloats().mul(mul).reinterpretAsInts();
                IntVector even2 = pair2.lanewise(VectorOperators.LSHL, 16)
                        .reinterpretAsFloats()
                        .mul(mul)
                        .reinterpretAsInts();
                IntVector odd2 =
                        pair2.and(0xFFFF0000).reinterpretAsFloats().mul(mul).reinterpretAsInts();
                evenCode = even.add(even.lanewise(VectorOperators.LSHR, 20).and(1))
                        .add(ROUND)
                        .lanewise(VectorOperators.LSHR, 20);
                oddCode = odd.add(odd.lanewise(VectorOperators.LSHR, 20).and(1))
                        .add(ROUND)
                        .lanewise(VectorOperators.LSHR, 20);
                evenCode2 = even2.add(even2.lanewise(VectorOperators.LSHR, 20).and(1))
                        .add(ROUND)
                        .lanewise(VectorOperators.LSHR, 20);
                oddCode2 = odd2.add(odd2.lanewise(VectorOperators.LSHR, 20).and(1))
                        .add(ROUND)
                        .lanewise(VectorOperators.LSHR, 20);
            } else { // subnormal codes in the block (or NaN: rewritten afterwards)
                float m = -mul;
                FloatVector evenF = pair.lanewise(VectorOperators.LSHL, 16)
                        .and(0x7FFF0000)
                        .reinterpretAsFloats()
                        .mul(m);
                FloatVector oddF = pair.and(0x7FFF0000).reinterpretAsFloats().mul(m);
                FloatVector evenF2 = pair2.lanewise(VectorOperators.LSHL, 16)
                        .and(0x7FFF0000)
                        .reinterpretAsFloats()
                        .mul(m);
                FloatVector oddF2 = pair2.and(0x7FFF0000).reinterpretAsFloats().mul(m);
                IntVector even = evenF.reinterpretAsInts(), odd = oddF.reinterpretAsInts();
                IntVector even2 = evenF2.reinterpretAsInts(), odd2 = oddF2.reinterpretAsInts();
                evenCode = even.add(even.lanewise(VectorOperators.LSHR, 20).and(1))
                        .add(ROUND)
                        .lanewise(VectorOperators.ASHR, 20)
                        .max(evenF.add(SUB_GRID)
                                .reinterpretAsInts()
                                .sub(SUB_GRID_BITS)
                                .min(8));
                oddCode = odd.add(odd.lanewise(VectorOperators.LSHR, 20).and(1))
                        .add(ROUND)
                        .lanewise(VectorOperators.ASHR, 20)
                        .max(oddF.add(SUB_GRID)
                                .reinterpretAsInts()
                                .sub(SUB_GRID_BITS)
                                .min(8));
                evenCode2 = even2.add(even2.lanewise(VectorOperators.LSHR, 20).and(1))
                        .add(ROUND)
                        .lanewise(VectorOperators.ASHR, 20)
                        .max(evenF2.add(SUB_GRID)
                                .reinterpretAsInts()
                                .sub(SUB_GRID_BITS)
                                .min(8));
                oddCode2 = odd2.add(odd2.lanewise(VectorOperators.LSHR, 20).and(1))
                        .add(ROUND)
                        .lanewise(VectorOperators.ASHR, 20)
                        .max(oddF2.add(SUB_GRID)
                                .reinterpretAsInts()
                                .sub(SUB_GRID_BITS)
                                .min(8));
            }
            IntVector both = evenCode.or(oddCode.lanewise(VectorOperators.LSHL, 16))
                    .or(pair.lanewise(VectorOperators.LSHR, 8).and(0x00800080));
            IntVector both2 = evenCode2
                    .or(oddCode2.lanewise(VectorOperators.LSHL, 16))
                    .or(pair2.lanewise(VectorOperators.LSHR, 8).and(0x00800080));
            ((ByteVector) both.reinterpretAsShorts().convertShape(VectorOperators.S2B, CODES, 0))
                    .intoMemorySegment(codes, out + c, LE);
            ((ByteVector) both2.reinterpretAsShorts().convertShape(VectorOperators.S2B, CODES, 0))
                    .intoMemorySegment(codes, out + c + STEP, LE);
        }
        return touched;
    }
}
