package dev.unicomm.backend.nvshmem.internal;

import dev.unicomm.api.Memory;
import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.SymmetricBuffer;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * A range of NVSHMEM's symmetric heap in GPU memory. The host cannot dereference it:
 * {@link #segment()} throws and {@link #peer(int)} is always empty. {@link #peerMemory(int)} gives
 * the peer's copy as device memory ({@code nvshmem_ptr}) where the peer is load/store reachable
 * from this GPU (same GPU, or NVLink/PCIe P2P): usable by kernels and {@code DeviceRuntime.copy}.
 */
final class NvshmemBuffer implements SymmetricBuffer {
    private final NvshmemCommunicator c;
    private final NvshmemHeap heap;
    private final long address, offset, bytes, padded;
    private volatile boolean open = true;

    NvshmemBuffer(NvshmemCommunicator c, NvshmemHeap heap, long address, long offset, long bytes, long padded) {
        this.c = c;
        this.heap = heap;
        this.address = address;
        this.offset = offset;
        this.bytes = bytes;
        this.padded = padded;
    }

    long padded() {
        return padded;
    }

    void ensureOpen(String what) {
        if (!open)
            throw new IllegalStateException(
                    what + ": symmetric buffer at heap offset " + offset + " was already freed");
    }

    @Override
    public long offset() {
        return offset;
    }

    @Override
    public boolean isOpen() {
        return open && c.isOpen();
    }

    @Override
    public MemoryKind kind() {
        return c.kind;
    }

    @Override
    public long address() {
        return address;
    }

    @Override
    public long byteSize() {
        return bytes;
    }

    @Override
    public MemorySegment segment() {
        throw new IllegalStateException(
                "symmetric buffer at heap offset " + offset + " lives in " + c.kind
                        + " memory, which the host cannot dereference: read it with Rma.get into a host segment, or DeviceRuntime.copy");
    }

    /** Always empty: NVSHMEM's heap is GPU memory, never host-addressable. See {@link #peerMemory(int)}. */
    @Override
    public Optional<MemorySegment> peer(int pe) {
        if (pe < 0 || pe >= c.size)
            throw new IndexOutOfBoundsException(
                    "PE " + pe + " is out of range: the communicator has PEs 0.." + (c.size - 1));
        return Optional.empty();
    }

    @Override
    public Optional<Memory> peerMemory(int pe) {
        if (pe < 0 || pe >= c.size)
            throw new IndexOutOfBoundsException(
                    "PE " + pe + " is out of range: the communicator has PEs 0.." + (c.size - 1));
        ensureOpen("peerMemory");
        c.ensureOpen();
        if (bytes == 0) return Optional.empty();
        long p = NvOps.peerPtr(address, c.npe(pe));
        return p == 0 ? Optional.empty() : Optional.of(Memory.device(p, bytes, c.kind));
    }

    @Override
    public void close() {
        c.ensureOpen();
        synchronized (this) {
            if (!open)
                throw new IllegalStateException(
                        "symmetric buffer at heap offset " + offset + " was already freed (double free)");
            open = false;
        }
        heap.free(this);
    }

    @Override
    public String toString() {
        return "NvshmemBuffer[offset=" + offset + ", bytes=" + bytes + ", " + c.kind + (open ? "" : ", freed") + "]";
    }
}
