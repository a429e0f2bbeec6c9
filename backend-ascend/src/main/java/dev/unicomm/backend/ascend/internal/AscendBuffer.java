package dev.unicomm.backend.ascend.internal;

import dev.unicomm.api.Memory;
import dev.unicomm.api.MemoryKind;
import dev.unicomm.spi.support.HeapBlock;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * A block of the Ascend symmetric heap ({@code aclshmem_align}). On the default device heap it is
 * NPU memory: {@link #segment()} refuses and {@link #peer(int)} is empty (copy with the device
 * runtime instead; {@link #peerMemory(int)} gives peers' copies as NPU addresses). On a host-side heap both work, {@code peer} through {@code aclshmem_ptr}.
 */
final class AscendBuffer extends HeapBlock {
    final AscendHeap heap;
    final long ptr;
    final long reserved;

    AscendBuffer(AscendHeap heap, long ptr, long bytes, long offset, long reserved) {
        super(offset, bytes);
        this.heap = heap;
        this.ptr = ptr;
        this.reserved = reserved;
    }

    @Override
    public MemoryKind kind() {
        return heap.kind();
    }

    @Override
    public long address() {
        return ptr;
    }

    @Override
    public MemorySegment segment() {
        if (!heap.hostSide)
            throw new IllegalStateException(
                    "symmetric buffer at heap offset " + offset() + " is " + heap.kind()
                            + " memory; the host cannot dereference it (copy it with DeviceRuntime.copy, or set unicomm.ascend.heap.side=host)");
        return MemorySegment.ofAddress(ptr).reinterpret(byteSize());
    }

    @Override
    public Optional<MemorySegment> peer(int pe) {
        if (!heap.hostSide) return Optional.empty();
        long p = AscendNatives.ptr(ptr, pe);
        return p == 0
                ? Optional.empty()
                : Optional.of(MemorySegment.ofAddress(p).reinterpret(byteSize()));
    }

    /**
     * {@code aclshmem_ptr(ptr, pe)}: on the device heap, PE {@code pe}'s copy as an address on this
     * PE's NPU (for kernels and {@code DeviceRuntime.copy}); on a host-side heap, {@link #peer(int)}'s
     * segment. Empty where aclshmem_ptr returns NULL (PE not reachable by load/store from here).
     */
    @Override
    public Optional<Memory> peerMemory(int pe) {
        if (heap.hostSide) return peer(pe).map(Memory::of);
        long p = AscendNatives.ptr(ptr, pe);
        return p == 0 ? Optional.empty() : Optional.of(Memory.device(p, byteSize(), heap.kind()));
    }

    @Override
    protected void free() {
        heap.free(this);
    }

    @Override
    protected String details() {
        return ", " + heap.kind() + (isOpen() ? "" : ", freed");
    }
}
