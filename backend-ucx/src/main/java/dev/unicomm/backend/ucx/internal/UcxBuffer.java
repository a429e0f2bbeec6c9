package dev.unicomm.backend.ucx.internal;

import dev.unicomm.spi.support.LocalCopyBlock;
import java.lang.foreign.MemorySegment;

/** A block of this PE's mapped heap; other PEs' copies are reached through UCX only (peers may be on other hosts). */
final class UcxBuffer extends LocalCopyBlock {
    private final UcxHeap heap;

    UcxBuffer(UcxHeap heap, long offset, MemorySegment local) {
        super(offset, local, heap.rank());
        this.heap = heap;
    }

    @Override
    protected void free() {
        heap.free(this);
    }
}
