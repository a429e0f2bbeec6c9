package dev.unicomm.spi.support;

import java.util.Map;
import java.util.TreeMap;

/**
 * First-fit allocator over {@code [0, capacity)} for {@link StoreHeap}. Deterministic: the same sequence of
 * calls gives the same offsets on every PE, which is what makes the heap symmetric.
 */
final class FirstFitAllocator {
    private final long capacity;
    private final TreeMap<Long, Long> free = new TreeMap<>(); // offset -> length
    private final TreeMap<Long, Long> used = new TreeMap<>(); // offset -> length (including padding at the front)
    private long usedBytes;

    FirstFitAllocator(long capacity) {
        this.capacity = capacity;
        free.put(0L, capacity);
    }

    /** The start offset of a block of {@code bytes} aligned to {@code alignment}, or -1 if none fits. */
    synchronized long allocate(long bytes, long alignment) {
        long size = Math.max(bytes, 1);
        for (Map.Entry<Long, Long> e : free.entrySet()) {
            long start = e.getKey(), len = e.getValue();
            long aligned = (start + alignment - 1) & -alignment;
            long end = aligned + size;
            if (aligned < start || end > start + len) continue;
            free.remove(start);
            if (aligned > start) free.put(start, aligned - start);
            if (end < start + len) free.put(end, start + len - end);
            used.put(aligned, size);
            usedBytes += size;
            return aligned;
        }
        return -1;
    }

    /** Frees the block at {@code offset}, merging neighbours. */
    synchronized void free(long offset) {
        Long size = used.remove(offset);
        if (size == null) throw new IllegalStateException("no symmetric allocation starts at heap offset " + offset);
        usedBytes -= size;
        long start = offset, end = offset + size;
        Map.Entry<Long, Long> before = free.floorEntry(start);
        if (before != null && before.getKey() + before.getValue() == start) {
            start = before.getKey();
            free.remove(start);
        }
        Long afterLen = free.remove(end);
        if (afterLen != null) end += afterLen;
        free.put(start, end - start);
    }

    long capacity() {
        return capacity;
    }

    synchronized long used() {
        return usedBytes;
    }
}
