package dev.unicomm.backend.rdma.internal;

import dev.unicomm.spi.support.LocalCopyBlock;
import java.lang.foreign.MemorySegment;

/** A block of this PE's registered heap; remote PEs' copies are reached through RMA only. */
final class RdmaBuffer extends LocalCopyBlock {
    private final RdmaHeap heap;

    RdmaBuffer(RdmaHeap heap, long offset, MemorySegment local) {
        super(offset, local, heap.rank());
        this.heap = heap;
    }

    @Override
    protected void free() {
        heap.free(this);
    }
}
