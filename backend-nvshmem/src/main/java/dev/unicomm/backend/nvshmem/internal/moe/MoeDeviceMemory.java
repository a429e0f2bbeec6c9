package dev.unicomm.backend.nvshmem.internal.moe;

import dev.unicomm.backend.nvshmem.internal.NvOps;
import java.util.ArrayList;
import java.util.List;

/** The plain GPU memory of one MoE buffer (cudaMalloc): counted in its footprint, freed with it. */
final class MoeDeviceMemory {
    private final List<Long> allocs = new ArrayList<>();
    private long bytes;

    /** At least 16 bytes, so that even an empty part has an address of its own. */
    long alloc(long n) {
        long a = NvOps.devAlloc(Math.max(n, 16));
        allocs.add(a);
        bytes += Math.max(n, 16);
        return a;
    }

    /** Bytes allocated so far. */
    long bytes() {
        return bytes;
    }

    /** Frees everything; a failure is noted in {@code problems} (null: thrown) and the rest still freed. */
    void freeAll(List<String> problems) {
        for (long a : allocs) {
            if (problems == null) {
                NvOps.devFree(a);
                continue;
            }
            try {
                NvOps.devFree(a);
            } catch (RuntimeException e) {
                problems.add("device memory: " + e.getMessage());
            }
        }
    }
}
