package dev.unicomm.backend.ucx.internal;

import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.OutOfSymmetricMemoryException;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.SymmetricHeap;
import dev.unicomm.spi.Store;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/**
 * The symmetric heap: one native segment per PE, mapped once with {@code ucp_mem_map}. Allocation and
 * free are collective: each PE publishes its request in the rendezvous store and compares it with
 * every PE's, which also orders them (no peer writes into a block before its owner has zeroed it).
 * Free first completes this PE's RMA (semantics §3.3).
 */
final class UcxHeap implements SymmetricHeap {
    private final MemorySegment segment;
    private final SymmetricAllocator allocator;
    private final Store store;
    private final int rank, size;
    private final String prefix;
    private final Runnable quiet;
    private long steps;

    UcxHeap(MemorySegment segment, Store store, int rank, int size, String prefix, Runnable quiet) {
        this.segment = segment;
        this.allocator = new SymmetricAllocator(segment.byteSize());
        this.store = store;
        this.rank = rank;
        this.size = size;
        this.prefix = prefix;
        this.quiet = quiet;
    }

    int rank() {
        return rank;
    }

    MemorySegment segment() {
        return segment;
    }

    int liveBlocks() {
        return allocator.blocks();
    }

    @Override
    public synchronized SymmetricBuffer allocate(long bytes, long alignment) {
        agree("allocate", bytes + "/" + alignment, "size/alignment");
        long at = allocator.allocate(bytes, alignment);
        if (at < 0) throw new OutOfSymmetricMemoryException(bytes, alignment, allocator.capacity(), allocator.used());
        MemorySegment local = segment.asSlice(at, bytes);
        local.fill((byte) 0);
        agree("zeroed", Long.toString(at), "heap offset");
        return new UcxBuffer(this, at, local);
    }

    synchronized void free(UcxBuffer b) {
        quiet.run();
        agree("free", Long.toString(b.offset()), "freed heap offset");
        allocator.free(b.offset());
    }

    /** Publishes this PE's value for the next collective step and checks that every PE gave the same one. */
    private void agree(String step, String mine, String what) {
        String key = prefix + "heap/" + (steps++) + "/" + step + "/";
        store.set(key + rank, mine.getBytes(StandardCharsets.UTF_8));
        for (int pe = 0; pe < size; pe++) {
            String theirs = new String(store.get(key + pe), StandardCharsets.UTF_8);
            if (!theirs.equals(mine))
                throw new IllegalArgumentException(
                        "symmetric " + step + " mismatch: PE " + rank + " gave " + what + " " + mine + ", PE " + pe
                                + " gave " + theirs + "; every PE must make the same heap calls in the same order");
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
