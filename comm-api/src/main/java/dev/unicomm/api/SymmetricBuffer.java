package dev.unicomm.api;

import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * A range of the symmetric heap, at the same {@link #offset()} on every PE. As {@link Memory} it
 * is this PE's local part. {@link #close()} frees it and is <em>collective</em>; using a closed
 * buffer throws {@link IllegalStateException}, and closing twice is an error, not a no-op.
 */
public interface SymmetricBuffer extends Memory, AutoCloseable {

    /** Offset of this buffer from the start of the symmetric heap (equal on every PE). */
    long offset();

    /** Whether the buffer has not been freed yet. */
    boolean isOpen();

    /**
     * A host segment over PE {@code pe}'s copy of this buffer, for direct load/store, where the
     * hardware allows it (shared memory mapping, {@code nvshmem_ptr}, {@code aclshmem_ptr} of a
     * host-visible heap). Loads and stores through it are ordinary memory accesses: use
     * {@link Rma#fence()}/{@link Rma#quiet()} and a barrier to order them against RMA.
     *
     * @return the segment, or empty where PE {@code pe} is not load/store reachable from here
     * @throws IndexOutOfBoundsException if {@code pe} is not a PE of the communicator
     */
    Optional<MemorySegment> peer(int pe);

    /**
     * PE {@code pe}'s copy of this buffer as memory this process may address directly: for host heaps
     * the segment of {@link #peer(int)}; for device heaps a device address on this PE's device
     * (NVSHMEM's {@code nvshmem_ptr}) that kernels and {@link DeviceRuntime#copy} may use, where
     * {@link #peer(int)} is empty because the host cannot dereference device memory.
     *
     * @return the memory, or empty where PE {@code pe} is not load/store reachable from here
     * @throws IndexOutOfBoundsException if {@code pe} is not a PE of the communicator
     */
    default Optional<Memory> peerMemory(int pe) {
        return peer(pe).map(Memory::of);
    }

    /**
     * Frees the buffer on every PE (collective). First completes this PE's outstanding RMA, as
     * {@link Rma#quiet()} does, so no put issued before close lands in memory handed out again
     * (docs/spec/semantics.md §3.3).
     */
    @Override
    void close();
}
