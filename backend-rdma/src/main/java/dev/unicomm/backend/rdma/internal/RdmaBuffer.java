package dev.unicomm.backend.rdma.internal;

import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.SymmetricBuffer;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

/** A block of this PE's registered heap; remote PEs' copies are reached through RMA only. */
final class RdmaBuffer implements SymmetricBuffer {
    private final RdmaHeap heap;
    private final long offset;
    private final long bytes;
    private final MemorySegment local;
    private volatile boolean open = true;

    RdmaBuffer(RdmaHeap heap, long offset, long bytes, MemorySegment local) {
        this.heap = heap;
        this.offset = offset;
        this.bytes = bytes;
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
        return bytes;
    }

    @Override
    public MemorySegment segment() {
        return local;
    }

    /** Only this PE's own copy is load/store reachable; other PEs are across the network. */
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
        return "RdmaBuffer[offset=" + offset + ", bytes=" + bytes + "]";
    }
}
