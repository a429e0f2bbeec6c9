package dev.unicomm.backend.ucx.internal;

import java.util.Map;
import java.util.TreeMap;

/**
 * First-fit allocator over {@code [0, capacity)}. Deterministic, so the same sequence of calls gives
 * the same offsets on every PE: that is what makes the heap symmetric without sending offsets around.
 */
final class SymmetricAllocator {
    private final long capacity;
    private final TreeMap<Long, Long> holes = new TreeMap<>(); // start -> length
    private final TreeMap<Long, Long> blocks = new TreeMap<>(); // start -> length
    private long used;

    SymmetricAllocator(long capacity) {
        this.capacity = capacity;
        holes.put(0L, capacity);
    }

    /** Offset of a new block of {@code bytes} (at least 1) aligned to {@code alignment}, or -1 when none fits. */
    synchronized long allocate(long bytes, long alignment) {
        long size = Math.max(1, bytes);
        for (Map.Entry<Long, Long> hole : holes.entrySet()) {
            long start = hole.getKey(), end = start + hole.getValue();
            long at = (start + alignment - 1) & -alignment;
            if (at < start || at > end - size) continue;
            holes.remove(start);
            if (at > start) holes.put(start, at - start);
            if (at + size < end) holes.put(at + size, end - at - size);
            blocks.put(at, size);
            used += size;
            return at;
        }
        return -1;
    }

    /** Returns the block at {@code offset}, joining it with free neighbours. */
    synchronized void free(long offset) {
        Long size = blocks.remove(offset);
        if (size == null) throw new IllegalStateException("no block of the symmetric heap starts at offset " + offset);
        used -= size;
        long start = offset, end = offset + size;
        Map.Entry<Long, Long> below = holes.floorEntry(start);
        if (below != null && below.getKey() + below.getValue() == start) {
            start = below.getKey();
            holes.remove(start);
        }
        Long above = holes.remove(end);
        if (above != null) end += above;
        holes.put(start, end - start);
    }

    long capacity() {
        return capacity;
    }

    synchronized long used() {
        return used;
    }

    synchronized int blocks() {
        return blocks.size();
    }
}
