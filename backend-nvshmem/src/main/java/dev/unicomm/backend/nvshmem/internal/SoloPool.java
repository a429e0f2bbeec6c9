package dev.unicomm.backend.nvshmem.internal;

import java.util.Map;
import java.util.TreeMap;

/**
 * A range of NVSHMEM's symmetric heap reserved (collectively, once) when the process joins a job of
 * several PEs, from which a one-PE communicator opened later in the same process takes its
 * buffers without any collective call: NVSHMEM cannot start a second job in a process, and its
 * allocations are collective over the whole job. First fit, addresses sorted.
 */
final class SoloPool {
    private final long base, size;
    private final TreeMap<Long, Long> used = new TreeMap<>();

    SoloPool(long base, long size) {
        this.base = base;
        this.size = size;
    }

    long size() {
        return size;
    }

    /** An aligned range of {@code bytes}, or 0 if none is free. */
    synchronized long allocate(long bytes, long alignment) {
        long cursor = base;
        for (Map.Entry<Long, Long> e : used.entrySet()) {
            long at = align(cursor, alignment);
            if (at + bytes <= e.getKey()) return take(at, bytes);
            cursor = e.getKey() + e.getValue();
        }
        long at = align(cursor, alignment);
        return at + bytes <= base + size ? take(at, bytes) : 0;
    }

    private long take(long at, long bytes) {
        used.put(at, Math.max(bytes, 1));
        return at;
    }

    synchronized void free(long addr) {
        used.remove(addr);
    }

    private static long align(long v, long a) {
        return (v + a - 1) & -a;
    }
}
