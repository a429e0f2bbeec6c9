package dev.unicomm.spi.support;

import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.OutOfSymmetricMemoryException;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.SymmetricHeap;
import dev.unicomm.spi.Store;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * A symmetric heap of host memory for backends whose PEs reach each other's copies over a network: one
 * segment per PE (which the backend registers or maps once), carved first-fit the same way on every PE.
 * Allocation and free are collective; every PE publishes its request in the rendezvous {@link Store} and
 * compares it with everyone's, which also makes them a synchronization point (a peer never writes into a
 * block this PE has not zeroed yet). Its buffers' {@code peer(pe)} is this PE's copy for its own rank only.
 */
public final class StoreHeap implements SymmetricHeap {
    private final MemorySegment segment;
    private final FirstFitAllocator allocator;
    private final Store store;
    private final int rank;
    private final int size;
    private final String keyPrefix;
    private final Runnable beforeFree;
    private long sequence;

    /**
     * @param segment this PE's heap memory
     * @param store the job's rendezvous store
     * @param rank this PE's world rank
     * @param size the number of PEs
     * @param keyPrefix the prefix of the communicator's store keys
     * @param beforeFree runs before a free's agreement (e.g. completes this PE's RMA)
     */
    public StoreHeap(MemorySegment segment, Store store, int rank, int size, String keyPrefix, Runnable beforeFree) {
        this.segment = segment;
        this.allocator = new FirstFitAllocator(segment.byteSize());
        this.store = store;
        this.rank = rank;
        this.size = size;
        this.keyPrefix = keyPrefix;
        this.beforeFree = beforeFree;
    }

    int rank() {
        return rank;
    }

    @Override
    public synchronized SymmetricBuffer allocate(long bytes, long alignment) {
        agree("allocate", bytes + "/" + alignment, "allocation size/alignment (bytes)");
        long off = allocator.allocate(bytes, alignment);
        if (off < 0) throw new OutOfSymmetricMemoryException(bytes, alignment, allocator.capacity(), allocator.used());
        MemorySegment local = segment.asSlice(off, bytes);
        local.fill((byte) 0);
        // Everyone has zeroed its block before anyone may write into it.
        agree("allocated", Long.toString(off), "heap offset");
        return new LocalCopyBlock(this, off, local);
    }

    synchronized void free(LocalCopyBlock b) {
        beforeFree.run();
        agree("free", Long.toString(b.offset()), "freed heap offset");
        allocator.free(b.offset());
    }

    /** Publishes this PE's value for the next collective step and checks every PE gave the same. */
    private void agree(String step, String value, String what) {
        long seq = sequence++;
        String key = keyPrefix + "heap/" + seq + "/" + step + "/";
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
