package dev.unicomm.spi.support;

import dev.unicomm.api.MemoryKind;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * A block of a {@link StoreHeap}: host memory of which only this PE's own copy is load/store reachable; the
 * other PEs' copies are across a network and reached through RMA only (so {@link #peer(int)} is empty for them).
 */
final class LocalCopyBlock extends HeapBlock {
    private final StoreHeap heap;
    private final MemorySegment local;

    LocalCopyBlock(StoreHeap heap, long offset, MemorySegment local) {
        super(offset, local.byteSize());
        this.heap = heap;
        this.local = local;
    }

    @Override
    public MemoryKind kind() {
        return MemoryKind.HOST;
    }

    @Override
    public long address() {
        return local.address();
    }

    @Override
    public MemorySegment segment() {
        return local;
    }

    /** This PE's copy for its own rank; empty for the others. */
    @Override
    public Optional<MemorySegment> peer(int pe) {
        return pe == heap.rank() ? Optional.of(local) : Optional.empty();
    }

    @Override
    protected void free() {
        heap.free(this);
    }
}
