package dev.unicomm.collectives.fp8;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** {@link Fp8Quantiser}'s blocks in plain Java: the definition the Vector API path must match bit for bit. */
final class ScalarFp8 implements BlockQuantiser {
    private static final ValueLayout.OfShort BF16 = ValueLayout.JAVA_SHORT_UNALIGNED;

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
        for (int r = 0; r < rows; r++) // rows are contiguous: row r's blocks follow row r-1's
        quantiseBlocks(
                    src,
                    srcOffset + 256L * r * blocksPerRow,
                    codes,
                    codesOffset + 128L * r * blocksPerRow,
                    scales,
                    scalesOffset + 4L * r * blocksPerRow,
                    blocksPerRow);
    }

    /** {@code blocks} consecutive blocks. */
    static void quantiseBlocks(
            MemorySegment src,
            long srcOffset,
            MemorySegment codes,
            long codesOffset,
            MemorySegment scales,
            long scalesOffset,
            int blocks) {
        for (int b = 0; b < blocks; b++) {
            long in = srcOffset + 2L * b * Fp8Quantiser.BLOCK, out = codesOffset + (long) b * Fp8Quantiser.BLOCK;
            float amax = 0f;
            for (int c = 0; c < Fp8Quantiser.BLOCK; c++) amax = Math.max(amax, Math.abs(bf16(src, in, c)));
            amax = Math.max(amax, Fp8Quantiser.MIN_AMAX);
            float mul = Fp8Quantiser.MAX / amax;
            for (int c = 0; c < Fp8Quantiser.BLOCK; c++)
                codes.set(ValueLayout.JAVA_BYTE, out + c, encode(bf16(src, in, c) * mul));
            scales.set(ValueLayout.JAVA_FLOAT_UNALIGNED, scalesOffset + 4L * b, amax / Fp8Quantiser.MAX);
        }
    }

    private static float bf16(MemorySegment src, long offset, int c) {
        return Float.intBitsToFloat(src.get(BF16, offset + 2L * c) << 16);
    }

    /**
     * Nearest e4m3 code, ties to even; NaN gives 0x7F; values beyond 448 saturate. Branch-free (the
     * vector path does the same steps lane-wise): normal values round their fp32 bits to 3 mantissa
     * bits (the carry moves into the exponent), subnormals ({@code < 2^-6}) round {@code a * 512} to
     * an integer with the 2^23 trick (fp32 addition rounds to nearest even).
     */
    static byte encode(float f) {
        int bits = Float.floatToRawIntBits(f);
        int abits = bits & 0x7FFFFFFF;
        int normal = ((abits + 0x7FFFF + ((abits >>> 20) & 1)) >>> 20) - 960;
        int sub = Float.floatToRawIntBits(Float.intBitsToFloat(abits) * 512f + 0x1p23f) - 0x4B000000;
        int code = Math.min(abits < 0x3C800000 ? sub : normal, 0x7E);
        int value = ((bits >>> 24) & 0x80) | code;
        return (byte) (abits > 0x7F800000 ? 0x7F : value);
    }
}
