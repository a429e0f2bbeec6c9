package dev.unicomm.backend.ucx.internal;

import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.SymmetricBuffer;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

/** A block of this PE's mapped heap; other PEs' copies are reached through UCX only. */
final class UcxBuffer implements SymmetricBuffer {
    private final UcxHeap heap;
    private final long offset;
    private final MemorySegment local;
    private volatile boolean open = true;

    UcxBuffer(UcxHeap heap, long offset, MemorySegment local) {
        this.heap = heap;
        this.offset = offset;
        this.local = local;
    }

    @Override
    public long offset() {
        return offset;
    }

    @Override
    public boolean isOpen() {
        return open;
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
    public long byteSize() {
        return local.byteSize();
    }

    @Override
    public MemorySegment segment() {
        return local;
    }

    /** Only this PE's own copy is load/store reachable: peers may be on other hosts. */
    @Override
    public Optional<MemorySegment> peer(int pe) {
        return pe == heap.rank() ? Optional.of(local) : Optional.empty();
    }

    @Override
    public void close() {
        if (!open) throw new IllegalStateException("symmetric buffer at heap offset " + offset + " was already freed");
        open = false;
        heap.free(this);
    }

    @Override
    public String toString() {
        return "UcxBuffer[offset=" + offset + ", bytes=" + local.byteSize() + "]";
    }
}
