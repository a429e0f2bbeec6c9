package dev.unicomm.backend.nvshmem.internal.moe;

import java.lang.ref.Cleaner;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * Routing memory of normal-mode handles (device int32 positions [T][R] and send offsets [R] per
 * dispatch): taken in slabs, and a handle's part returns to the pool when the handle is collected
 * (freed with the buffer's device memory).
 */
final class NormalRoutes {
    private static final Cleaner CLEANER = Cleaner.create();
    /** Handles whose routing memory one allocation provides. */
    private static final int ROUTES_PER_SLAB = 16;

    private final MoeDeviceMemory memory;
    private final long routeBytes;
    private final ConcurrentLinkedQueue<Long> freeRoutes = new ConcurrentLinkedQueue<>();

    NormalRoutes(MoeDeviceMemory memory, long routeBytes) {
        this.memory = memory;
        this.routeBytes = routeBytes;
    }

    NormalHandle newHandle(NvshmemMoe owner, int tokens, long maskEpoch) {
        Long r = freeRoutes.poll();
        if (r == null) {
            // cudaMalloc is slow: take routing memory for ROUTES_PER_SLAB handles at once.
            long stride = MoeSymLayout.align(routeBytes), slab = memory.alloc(ROUTES_PER_SLAB * stride);
            for (int i = 1; i < ROUTES_PER_SLAB; i++) freeRoutes.add(slab + i * stride);
            r = slab;
        }
        NormalHandle h = new NormalHandle(owner, r, tokens, maskEpoch);
        long mem = r;
        ConcurrentLinkedQueue<Long> pool = freeRoutes;
        // An unreachable handle's routing memory goes back to the pool (freed with the buffer).
        CLEANER.register(h, () -> pool.add(mem));
        return h;
    }
}
