package dev.unicomm.testsupport.threads;

import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.SymmetricBuffer;
import java.lang.foreign.MemorySegment;
import java.util.Optional;

/** A symmetric buffer of a {@link ThreadWorld}: the same offset in every thread-PE's heap. */
final class ThreadBuffer implements SymmetricBuffer {
    final ThreadWorld w;
    final int rank;
    final long offset;
    final long bytes;
    private boolean open = true;

    ThreadBuffer(ThreadWorld w, int rank, long offset, long bytes) {
        this.w = w;
        this.rank = rank;
        this.offset = offset;
        this.bytes = bytes;
    }

    MemorySegment on(int pe) {
        return w.heaps[pe].asSlice(offset, bytes);
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
    public Optional<MemorySegment> peer(int pe) {
        return w.direct || pe == rank ? Optional.of(on(pe)) : Optional.empty();
    }

    @Override
    public void close() {
        open = false;
    }

    @Override
    public MemoryKind kind() {
        return MemoryKind.HOST;
    }

    @Override
    public long address() {
        return on(rank).address();
    }

    @Override
    public long byteSize() {
        return bytes;
    }

    @Override
    public MemorySegment segment() {
        return on(rank);
    }
}
