package dev.unicomm.collectives.fp8;

import java.lang.foreign.MemorySegment;

/** Quantises rows of consecutive 128-channel blocks; arguments already checked by {@link Fp8Quantiser}. */
interface BlockQuantiser {
    /**
     * {@code rows} rows of {@code blocksPerRow} blocks of BF16, stored contiguously at {@code src[srcOffset..]},
     * into codes and one fp32 scale per block (row-major).
     */
    void quantise(
            MemorySegment src,
            long srcOffset,
            MemorySegment codes,
            long codesOffset,
            MemorySegment scales,
            long scalesOffset,
            int rows,
            int blocksPerRow);
}
