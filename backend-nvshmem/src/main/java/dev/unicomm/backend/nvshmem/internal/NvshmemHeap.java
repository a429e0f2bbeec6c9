package dev.unicomm.backend.nvshmem.internal;

import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.OutOfSymmetricMemoryException;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.SymmetricHeap;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * NVSHMEM's symmetric heap on this PE's GPU. {@code allocate} first checks that every PE asked
 * for the same size and alignment (an fcollect of the requests: NVSHMEM itself would silently
 * misbehave), then calls {@code nvshmem_align}. Offsets count from this communicator's first
 * symmetric allocation (its scratch area), which NVSHMEM places at the same address on every PE.
 */
final class NvshmemHeap implements SymmetricHeap {
    private final NvshmemCommunicator c;
    private final long base;
    private final Set<NvshmemBuffer> live = new LinkedHashSet<>();
    private long used;

    NvshmemHeap(NvshmemCommunicator c, long base) {
        this.c = c;
        this.base = base;
    }

    @Override
    public SymmetricBuffer allocate(long bytes, long alignment) {
        c.ensureOpen();
        if (bytes < 0) throw new IllegalArgumentException("allocation size must be >= 0, got " + bytes);
        if (alignment < 1 || Long.bitCount(alignment) != 1)
            throw new IllegalArgumentException("alignment must be a power of two >= 1, got " + alignment);
        c.lock.lock();
        try {
            if (!c.solo) agree(bytes, alignment);
            // Checked before rounding up, which could overflow for sizes near Long.MAX_VALUE.
            if (bytes > c.heapCapacity() - used || alignment > c.heapCapacity())
                throw new OutOfSymmetricMemoryException(bytes, alignment, c.heapCapacity(), used);
            long padded = roundUp(Math.max(bytes, 1), Math.max(alignment, 8));
            if (padded > c.heapCapacity() - used)
                throw new OutOfSymmetricMemoryException(bytes, alignment, c.heapCapacity(), used);
            long addr;
            try {
                addr = c.solo
                        ? soloAllocate(Math.max(bytes, 1), Math.max(alignment, 8))
                        : WatchedCall.run(
                                c, "nvshmem_align", () -> NvOps.symAlloc(Math.max(bytes, 1), Math.max(alignment, 8)));
            } catch (dev.unicomm.api.NativeCallException e) {
                throw new OutOfSymmetricMemoryException(bytes, alignment, c.heapCapacity(), used);
            }
            used += padded;
            NvshmemBuffer b = new NvshmemBuffer(c, this, addr, addr - base, bytes, padded);
            live.add(b);
            return b;
        } finally {
            c.lock.unlock();
        }
    }

    /**
     * All PEs compare their (bytes, alignment) through the communicator's call agreement (puts and
     * barriers only: NVSHMEM's collectives are unavailable when several PEs share a GPU without MPS,
     * and there they end the process). The validating layer agrees on user allocations already; this
     * check keeps the backend's own allocations (the MoE region) honest too.
     */
    private void agree(long bytes, long alignment) {
        long[][] all = c.agreement.exchange(c.world(), new long[] {bytes, alignment, 0, 0});
        StringBuilder bad = new StringBuilder();
        for (int pe = 0; pe < c.size; pe++) {
            long b = all[pe][0], a = all[pe][1];
            if (b != bytes || a != alignment)
                bad.append(" PE ")
                        .append(pe)
                        .append(": ")
                        .append(b)
                        .append(" bytes/alignment ")
                        .append(a)
                        .append(';');
        }
        if (!bad.isEmpty())
            throw new IllegalArgumentException(
                    "symmetric allocate is collective: every PE must ask for the same size and alignment; "
                            + "this PE asked for " + bytes + " bytes/alignment " + alignment + ", but" + bad);
    }

    /** A one-PE communicator takes its buffers from the pool reserved for it (no collective call). */
    private static long soloAllocate(long bytes, long alignment) {
        long a = NvshmemProcess.soloAllocate(bytes, alignment);
        if (a == 0) throw new dev.unicomm.api.NativeCallException("one-PE pool allocate", 0, "pool exhausted");
        return a;
    }

    private static long roundUp(long v, long a) {
        return (v + a - 1) & -a;
    }

    void free(NvshmemBuffer b) {
        c.lock.lock();
        try {
            if (!live.remove(b)) return;
            used -= b.padded();
            c.symFree(b.address());
        } finally {
            c.lock.unlock();
        }
    }

    /** Frees every live buffer (communicator close), in allocation order as on every PE. */
    void releaseAll(List<String> problems) {
        for (NvshmemBuffer b : new ArrayList<>(live)) {
            try {
                b.close();
            } catch (RuntimeException e) {
                problems.add("symmetric buffer at offset " + b.offset() + ": " + e.getMessage());
            }
        }
    }

    @Override
    public long capacity() {
        return c.heapCapacity();
    }

    @Override
    public long used() {
        return used;
    }

    @Override
    public MemoryKind kind() {
        return c.kind;
    }
}
