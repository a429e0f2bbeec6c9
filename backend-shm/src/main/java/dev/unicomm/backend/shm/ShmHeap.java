package dev.unicomm.backend.shm;

import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.OutOfSymmetricMemoryException;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.SymmetricHeap;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The symmetric heap: a deterministic allocator (same calls, same offsets on every PE) plus a
 * cross-PE agreement check. Every allocate/free exchanges its request (sequence, operation, size,
 * alignment or offset) with every PE through the world team's agreement barrier ({@link ShmTeam#exchange})
 * and compares them: if they differ every PE throws the same {@link IllegalArgumentException} and no
 * PE's heap changes. New buffers read as zero on every PE (each PE clears its part before the barrier).
 *
 * <p>Alignment: the heap offset is a multiple of the requested alignment (at least 8). Each heap
 * mapping starts on a page boundary, so buffer addresses honour alignments up to the page size
 * (4 KiB); larger alignments hold for offsets only.
 */
final class ShmHeap implements SymmetricHeap {
    private static final long OP_ALLOC = 1, OP_FREE = 2;

    private final ShmCommunicator comm;
    private final SymmetricAllocator allocator;
    private final Set<ShmBuffer> live = new LinkedHashSet<>();
    private long seq;

    ShmHeap(ShmCommunicator comm, long capacity) {
        this.comm = comm;
        this.allocator = new SymmetricAllocator(capacity);
    }

    int rank() {
        return comm.rank();
    }

    @Override
    public synchronized SymmetricBuffer allocate(long bytes, long alignment) {
        long s = ++seq;
        long at = allocator.allocate(bytes, alignment);
        // Clear our part before the barrier, so no peer can write into it before we do.
        if (at >= 0) comm.heapOf(comm.rank()).asSlice(at, bytes).fill((byte) 0);
        String disagreement = agree(s, OP_ALLOC, bytes, alignment);
        if (disagreement != null) {
            if (at >= 0) allocator.free(at);
            throw new IllegalArgumentException("collective allocate disagrees across PEs: " + disagreement
                    + "; every PE must allocate the same size and alignment in the same order");
        }
        if (at < 0) throw new OutOfSymmetricMemoryException(bytes, alignment, allocator.capacity(), allocator.used());
        ShmBuffer b = new ShmBuffer(this, at, bytes, comm.heaps());
        live.add(b);
        return b;
    }

    synchronized void free(ShmBuffer b) {
        long s = ++seq;
        String disagreement = agree(s, OP_FREE, b.offset(), b.byteSize());
        live.remove(b);
        b.release();
        if (disagreement != null)
            // Nobody frees anything: every heap keeps both buffers, so the heaps stay symmetric.
            throw new IllegalArgumentException("collective free disagrees across PEs: " + disagreement
                    + "; every PE must free the same buffers in the same order (the buffer stays allocated)");
        allocator.free(b.offset());
    }

    /** {@code null} if every PE made the same request as this one, else a description of all requests. */
    private String agree(long s, long op, long a, long b) {
        long[][] all = comm.world().exchange(new long[] {s, op, a, b});
        boolean same = true;
        List<String> described = new ArrayList<>();
        for (int pe = 0; pe < comm.size(); pe++) {
            long[] w = all[pe];
            if (w[0] != s || w[1] < 0) {
                same = false;
                described.add("rank " + pe + " made no matching heap call (it is at heap call #" + w[0] + ", this is #"
                        + s + ")");
                continue;
            }
            if (w[1] != op || w[2] != a || w[3] != b) same = false;
            described.add("rank " + pe + " " + describe(w[1], w[2], w[3]));
        }
        return same ? null : String.join(", ", described);
    }

    private static String describe(long op, long a, long b) {
        return op == OP_ALLOC
                ? "allocated " + a + " bytes (alignment " + b + ")"
                : "freed the buffer at offset " + a + " (" + b + " bytes)";
    }

    /** Invalidates every buffer still open (the communicator is closing). */
    synchronized void releaseAll() {
        for (ShmBuffer b : live) b.release();
        live.clear();
    }

    @Override
    public long capacity() {
        return allocator.capacity();
    }

    @Override
    public synchronized long used() {
        return allocator.used();
    }

    @Override
    public MemoryKind kind() {
        return MemoryKind.HOST;
    }
}
