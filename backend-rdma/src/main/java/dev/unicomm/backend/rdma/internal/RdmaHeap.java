package dev.unicomm.backend.rdma.internal;

import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.OutOfSymmetricMemoryException;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.SymmetricHeap;
import dev.unicomm.spi.Store;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * The symmetric heap: one native segment per PE, registered once as a single memory region.
 * Allocation and free are collective; every PE publishes its request to the rendezvous store and
 * compares it with everyone's, which also makes them a synchronization point (a peer never writes
 * into a block this PE has not zeroed yet).
 */
final class RdmaHeap implements SymmetricHeap {
    private final MemorySegment segment;
    private final HeapAllocator allocator;
    private final Store store;
    private final int rank;
    private final int size;
    private final String prefix;
    private long sequence;

    RdmaHeap(MemorySegment segment, Store store, int rank, int size, String prefix) {
        this.segment = segment;
        this.allocator = new HeapAllocator(segment.byteSize());
        this.store = store;
        this.rank = rank;
        this.size = size;
        this.prefix = prefix;
    }

    int rank() {
        return rank;
    }

    MemorySegment segment() {
        return segment;
    }

    @Override
    public synchronized SymmetricBuffer allocate(long bytes, long alignment) {
        String request = bytes + "/" + alignment;
        agree("allocate", request, "allocation size/alignment (bytes)");
        long off = allocator.allocate(bytes, alignment);
        if (off < 0) throw new OutOfSymmetricMemoryException(bytes, alignment, allocator.capacity(), allocator.used());
        MemorySegment local = segment.asSlice(off, bytes);
        local.fill((byte) 0);
        // Everyone has zeroed its block before anyone may write into it.
        agree("allocated", Long.toString(off), "heap offset");
        return new RdmaBuffer(this, off, local);
    }

    synchronized void free(RdmaBuffer b) {
        agree("free", Long.toString(b.offset()), "freed heap offset");
        allocator.free(b.offset());
    }

    /** Publishes this PE's value for the next collective step and checks every PE gave the same. */
    private void agree(String step, String value, String what) {
        long seq = sequence++;
        String key = prefix + "heap/" + seq + "/" + step + "/";
        store.set(key + rank, value.getBytes(StandardCharsets.UTF_8));
        for (int pe = 0; pe < size; pe++) {
            String theirs = new String(store.get(key + pe), StandardCharsets.UTF_8);
            if (!theirs.equals(value))
                throw new IllegalArgumentException(
                        "symmetric " + step + " mismatch: PE " + rank + " asked for " + what + " " + value + " but PE "
                                + pe + " for " + theirs + "; every PE must make the same calls in the same order");
        }
    }

    @Override
    public long capacity() {
        return allocator.capacity();
    }

    @Override
    public long used() {
        return allocator.used();
    }

    @Override
    public MemoryKind kind() {
        return MemoryKind.HOST;
    }
}
