package dev.unicomm.collectives.fp8;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * Per-token FP8 e4m3 quantisation with one fp32 scale per 128 channels, as DeepEP's
 * {@code per_token_cast_to_fp8}, all in fp32: per block {@code amax = max(|x|, 1e-4)},
 * {@code code = e4m3(x * (448 / amax))} (nearest, ties to even; beyond 448 saturates; NaN gives
 * {@code 0x7F}), {@code scale = amax / 448}. Bit-exact with the conformance kit's reference
 * quantiser (a block holding NaN gets a NaN scale; which NaN is not specified).
 *
 * <p>Runs on the JDK's Vector API where the JVM was started with
 * {@code --add-modules jdk.incubator.vector} (near memory speed), else in plain loops (several
 * times slower); both give identical bytes.
 */
public final class Fp8Quantiser {
    private Fp8Quantiser() {}

    /** Channels per scale. */
    public static final int BLOCK = 128;
    /** Largest finite e4m3 value. */
    public static final float MAX = 448f;
    /** A block's amax is clamped to at least this before its scale is computed. */
    public static final float MIN_AMAX = 1e-4f;

    private static final BlockQuantiser BEST = best();

    private static BlockQuantiser best() {
        if (ModuleLayer.boot().findModule("jdk.incubator.vector").isEmpty()) return new ScalarFp8();
        try {
            return new VectorFp8();
        } catch (LinkageError | RuntimeException e) {
            return new ScalarFp8();
        }
    }

    /** Whether this JVM runs the Vector API path. */
    public static boolean vectorised() {
        return BEST instanceof VectorFp8;
    }

    /**
     * Quantises {@code rows} rows of {@code hidden} BF16 values stored contiguously at
     * {@code src[srcOffset..]} (little-endian) into {@code rows * hidden} codes at
     * {@code codes[codesOffset..]} and {@code rows * hidden / 128} fp32 scales at
     * {@code scales[scalesOffset..]} (row-major, unaligned allowed).
     *
     * @throws IllegalArgumentException if {@code hidden} is not a positive multiple of 128 or {@code rows < 0}
     * @throws IndexOutOfBoundsException if a range does not fit its segment
     */
    public static void quantise(
            MemorySegment src,
            long srcOffset,
            int rows,
            int hidden,
            MemorySegment codes,
            long codesOffset,
            MemorySegment scales,
            long scalesOffset) {
        Objects.requireNonNull(src, "src");
        Objects.requireNonNull(codes, "codes");
        Objects.requireNonNull(scales, "scales");
        if (hidden <= 0 || hidden % BLOCK != 0)
            throw new IllegalArgumentException("FP8 needs hidden to be a positive multiple of 128, got " + hidden);
        if (rows < 0) throw new IllegalArgumentException("rows must be >= 0, got " + rows);
        long values = (long) rows * hidden;
        Objects.checkFromIndexSize(srcOffset, 2 * values, src.byteSize());
        Objects.checkFromIndexSize(codesOffset, values, codes.byteSize());
        Objects.checkFromIndexSize(scalesOffset, 4 * (values / BLOCK), scales.byteSize());
        if (codes.isReadOnly() || scales.isReadOnly())
            throw new IllegalArgumentException("codes and scales must be writable");
        BEST.quantise(src, srcOffset, codes, codesOffset, scales, scalesOffset, rows, hidden / BLOCK);
    }

    /** The e4m3 code of one fp32 value: nearest, ties to even; beyond 448 saturates; NaN gives {@code 0x7F}. */
    public static byte encode(float f) {
        return ScalarFp8.encode(f);
    }
}
