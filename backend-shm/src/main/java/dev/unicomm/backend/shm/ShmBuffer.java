package dev.unicomm.backend.shm;

import dev.unicomm.api.MemoryKind;
import dev.unicomm.spi.support.HeapBlock;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * A symmetric allocation. Its segments ({@link #segment()}, {@link #peer(int)}) belong to an arena
 * of their own that is closed when the buffer is freed, so a segment kept past {@link #close()}
 * throws {@link IllegalStateException} instead of writing into memory that a later allocation owns.
 */
final class ShmBuffer extends HeapBlock {
    private final ShmHeap heap;
    private final Arena views = Arena.ofShared();
    private final MemorySegment[] peers;

    ShmBuffer(ShmHeap heap, long offset, long bytes, MemorySegment[] heaps) {
        super(offset, bytes);
        this.heap = heap;
        this.peers = new MemorySegment[heaps.length];
        for (int pe = 0; pe < heaps.length; pe++) {
            peers[pe] = heaps[pe].asSlice(offset, bytes).reinterpret(views, null);
        }
    }

    @Override
    public MemoryKind kind() {
        return MemoryKind.HOST;
    }

    @Override
    public long address() {
        return segment().address();
    }

    @Override
    public MemorySegment segment() {
        requireOpen();
        return peers[heap.rank()];
    }

    /** Every PE's copy is mapped here: always present. */
    @Override
    public Optional<MemorySegment> peer(int pe) {
        requireOpen();
        return Optional.of(peers[pe]);
    }

    /** Frees the buffer on every PE (collective, with a barrier first: no PE is still using it). */
    @Override
    protected void free() {
        heap.free(this);
    }

    /** Invalidates the views (after the collective free, or when the communicator closes). */
    void release() {
        invalidate();
        if (views.scope().isAlive()) views.close();
    }

    @Override
    protected String details() {
        return isOpen() ? "" : ", freed";
    }
}
