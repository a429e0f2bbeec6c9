package dev.unicomm.backend.shm;

import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.SymmetricBuffer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

/**
 * A symmetric allocation. Its segments ({@link #segment()}, {@link #peer(int)}) belong to an arena
 * of their own that is closed when the buffer is freed, so a segment kept past {@link #close()}
 * throws {@link IllegalStateException} instead of writing into memory that a later allocation owns.
 */
final class ShmBuffer implements SymmetricBuffer {
    private final ShmHeap heap;
    private final long offset;
    private final long bytes;
    private final Arena views = Arena.ofShared();
    private final MemorySegment[] peers;
    private volatile boolean open = true;

    ShmBuffer(ShmHeap heap, long offset, long bytes, MemorySegment[] heaps) {
        this.heap = heap;
        this.offset = offset;
        this.bytes = bytes;
        this.peers = new MemorySegment[heaps.length];
        for (int pe = 0; pe < heaps.length; pe++) {
            peers[pe] = heaps[pe].asSlice(offset, bytes).reinterpret(views, null);
        }
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
        return segment().address();
    }

    @Override
    public long byteSize() {
        return bytes;
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
    public void close() {
        synchronized (this) {
            if (!open)
                throw new IllegalStateException("symmetric buffer at heap offset " + offset + " was already freed");
            open = false;
        }
        heap.free(this);
    }

    /** Invalidates the views (after the collective free, or when the communicator closes). */
    void release() {
        open = false;
        if (views.scope().isAlive()) views.close();
    }

    private void requireOpen() {
        if (!open) throw new IllegalStateException("symmetric buffer at heap offset " + offset + " was freed");
    }

    @Override
    public String toString() {
        return "ShmBuffer[offset=" + offset + ", bytes=" + bytes + (open ? "" : ", freed") + "]";
    }
}
