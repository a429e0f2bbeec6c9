package dev.unicomm.testsupport.threads;

import dev.unicomm.api.MemoryKind;
import dev.unicomm.spi.support.HeapBlock;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

/** A symmetric buffer of a {@link ThreadWorld}: the same offset in every thread-PE's heap. */
final class ThreadBuffer extends HeapBlock {
    final ThreadWorld w;
    final int rank;

    ThreadBuffer(ThreadWorld w, int rank, long offset, long bytes) {
        super(offset, bytes);
        this.w = w;
        this.rank = rank;
    }

    MemorySegment on(int pe) {
        return w.heaps[pe].asSlice(offset(), byteSize());
    }

    @Override
    public Optional<MemorySegment> peer(int pe) {
        return w.direct || pe == rank ? Optional.of(on(pe)) : Optional.empty();
    }

    /** The thread heap only grows: closing just marks the buffer freed (again is harmless here). */
    @Override
    public void close() {
        invalidate();
    }

    /** Never called: {@link #close()} frees nothing. */
    @Override
    protected void free() {}

    @Override
    public MemoryKind kind() {
        return MemoryKind.HOST;
    }

    @Override
    public long address() {
        return on(rank).address();
    }

    @Override
    public MemorySegment segment() {
        return on(rank);
    }
}
