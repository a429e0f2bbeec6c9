package dev.unicomm.spi;

import dev.unicomm.api.DType;
import dev.unicomm.api.ReduceOp;
import java.lang.foreign.MemorySegment;

/**
 * Implemented by a collectives implementation that can reduce inputs already in this process's
 * memory: the API uses it to finish a small allreduce whose data rode in a {@link PayloadAgreement}
 * exchange, with the implementation's own arithmetic (element order, rounding), so a carried call
 * gives the same bits as one the implementation ran itself.
 */
public interface LocalReduction {
    /**
     * {@code out = inputs[0] op inputs[1] op ...} over {@code count} elements at offset 0 of each
     * segment, in index order (team-rank order), so every member computes the same bits.
     * {@code out} may be one of the inputs.
     */
    void reduceLocally(DType dtype, ReduceOp op, MemorySegment[] inputs, MemorySegment out, long count);
}
