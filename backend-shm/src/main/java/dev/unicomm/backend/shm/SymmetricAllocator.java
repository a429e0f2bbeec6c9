package dev.unicomm.backend.shm;

import java.util.Map;
import java.util.TreeMap;

/**
 * First-fit allocator over {@code [0, capacity)} with coalescing frees. Deterministic: the same
 * sequence of calls gives the same offsets on every PE, which is what makes the heap symmetric.
 * Not thread-safe (collective calls are serialised by the heap).
 */
final class SymmetricAllocator {
    /** Atomics need 8-byte-aligned words, so every block starts on at least 8 bytes. */
    static final long MIN_ALIGNMENT = 8;

    private final long capacity;
    /** Free blocks: start offset -> length. */
    private final TreeMap<Long, Long> free = new TreeMap<>();
    /** Allocated blocks: user offset -> {block start, block length}. */
    private final TreeMap<Long, long[]> allocated = new TreeMap<>();

    private long used;

    SymmetricAllocator(long capacity) {
        this.capacity = capacity;
        if (capacity > 0) free.put(0L, capacity);
    }

    long capacity() {
        return capacity;
    }

    /** Bytes allocated, alignment padding included. */
    long used() {
        return used;
    }

    /**
     * Reserves {@code bytes} at an offset that is a multiple of {@code alignment} (a power of two).
     *
     * @return the offset, or {@code -1} if no free block can hold it
     */
    long allocate(long bytes, long alignment) {
        if (bytes > capacity) return -1;
        long align = Math.max(alignment, MIN_ALIGNMENT);
        // A zero-byte buffer still gets a distinct offset, so reserve at least one word.
        long need = Math.max(roundUp(bytes, MIN_ALIGNMENT), MIN_ALIGNMENT);
        for (Map.Entry<Long, Long> e : free.entrySet()) {
            long start = e.getKey(), len = e.getValue();
            long at = roundUp(start, align);
            if (at - start > len || need > len - (at - start)) continue;
            free.remove(start);
            if (at > start) free.put(start, at - start);
            long tail = start + len - (at + need);
            if (tail > 0) free.put(at + need, tail);
            allocated.put(at, new long[] {at, need});
            used += need;
            return at;
        }
        return -1;
    }

    /**
     * Returns the block at {@code offset} to the free list, merging it with free neighbours.
     *
     * @throws IllegalArgumentException if no allocation starts there
     */
    void free(long offset) {
        long[] block = allocated.remove(offset);
        if (block == null)
            throw new IllegalArgumentException("no symmetric allocation starts at heap offset " + offset);
        used -= block[1];
        long start = block[0], len = block[1];
        Map.Entry<Long, Long> prev = free.floorEntry(start);
        if (prev != null && prev.getKey() + prev.getValue() == start) {
            start = prev.getKey();
            len += prev.getValue();
            free.remove(prev.getKey());
        }
        Long nextLen = free.get(start + len);
        if (nextLen != null) {
            free.remove(start + len);
            len += nextLen;
        }
        free.put(start, len);
    }

    /** Number of live allocations. */
    int liveCount() {
        return allocated.size();
    }

    /** Largest free block (for error messages). */
    long largestFree() {
        return free.values().stream().mapToLong(Long::longValue).max().orElse(0);
    }

    private static long roundUp(long v, long align) {
        return (v + align - 1) & -align;
    }
}
