package dev.unicomm.collectives.fp8;

import java.lang.foreign.MemorySegment;

/** Quantises consecutive 128-channel blocks; arguments already checked by {@link Fp8Quantiser}. */
interface BlockQuantiser {
    /** {@code blocks} blocks of BF16 at {@code src[srcOffset..]} into codes and one fp32 scale per block. */
    void quantise(MemorySegment src, long srcOffset, MemorySegment codes, long codesOffset, MemorySegment scales, long scalesOffset,
                  int blocks);
}
