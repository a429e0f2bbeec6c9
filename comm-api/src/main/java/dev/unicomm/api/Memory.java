package dev.unicomm.api;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A contiguous range of local memory that RMA, endpoints and MoE read from or write to: either a
 * host {@link MemorySegment} or device memory (an address, a size and a device).
 *
 * <p>{@code Memory} never owns what it describes unless the implementing type says so (for
 * example {@link SymmetricBuffer}, {@link DeviceBuffer}).
 */
public interface Memory {

    /** Where the memory lives. */
    MemoryKind kind();

    /** The first byte's address in this process (a device address for device memory). */
    long address();

    /** Length in bytes. */
    long byteSize();

    /**
     * The host segment behind this memory.
     *
     * @throws IllegalStateException if this is device memory, which the host cannot dereference
     */
    MemorySegment segment();

    /** Host memory backed by {@code segment} (heap or native). */
    static Memory of(MemorySegment segment) {
        return new HostMemory(segment);
    }

    /**
     * Host memory over a framework's {@link ByteBuffer}, without a copy: the bytes from the buffer's
     * position to its limit (as {@link MemorySegment#ofBuffer} sees them at this call). Direct buffers
     * give native memory; heap buffers give a heap segment, which backends that need native addresses
     * reject. Writes through unicomm (get, receive) land in the buffer; a read-only buffer can only be
     * a source. The buffer must stay reachable while unicomm uses the memory (the returned object
     * keeps the segment, which keeps the buffer).
     *
     * @throws IllegalArgumentException if {@code buffer} is null
     */
    static Memory of(ByteBuffer buffer) {
        if (buffer == null) throw new IllegalArgumentException("buffer must not be null");
        return new HostMemory(MemorySegment.ofBuffer(buffer));
    }

    /**
     * Device memory that someone else owns (a framework's tensor, say): no copy, no ownership.
     *
     * @param address  device address, non-zero
     * @param byteSize length in bytes, {@code >= 0}
     * @param kind     a device kind (not {@link MemoryKind#HOST})
     */
    static Memory device(long address, long byteSize, MemoryKind kind) {
        return new DeviceMemory(address, byteSize, kind);
    }
}
