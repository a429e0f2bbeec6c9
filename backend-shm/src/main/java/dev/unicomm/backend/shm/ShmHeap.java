package dev.unicomm.backend.shm;

import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.OutOfSymmetricMemoryException;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.SymmetricHeap;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The symmetric heap: a deterministic allocator (same calls, same offsets on every PE) plus a
 * cross-PE agreement check. Every allocate/free publishes its request (sequence, operation, size,
 * alignment or offset) in this PE's control area, passes a world barrier, and compares every PE's
 * request: if they differ every PE throws the same {@link IllegalArgumentException} and no PE's heap
 * changes. New buffers read as zero on every PE (each PE clears its part before the barrier).
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

    int rank() { return comm.rank(); }

    @Override public synchronized SymmetricBuffer allocate(long bytes, long alignment) {
        long s = ++seq;
        long at = allocator.allocate(bytes, alignment);
        // Clear our part before the barrier, so no peer can write into it before we do.
        if (at >= 0) comm.heapOf(comm.rank()).asSlice(at, bytes).fill((byte) 0);
        publish(s, OP_ALLOC, bytes, alignment);
        comm.world().barrier();
        String disagreement = compare(s, OP_ALLOC, bytes, alignment);
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
        publish(s, OP_FREE, b.offset(), b.byteSize());
        comm.world().barrier();
        String disagreement = compare(s, OP_FREE, b.offset(), b.byteSize());
        live.remove(b);
        b.release();
        if (disagreement != null)
            // Nobody frees anything: every heap keeps both buffers, so the heaps stay symmetric.
            throw new IllegalArgumentException("collective free disagrees across PEs: " + disagreement
                    + "; every PE must free the same buffers in the same order (the buffer stays allocated)");
        allocator.free(b.offset());
    }

    private void publish(long s, long op, long a, long b) {
        MemorySegment c = comm.control(comm.rank());
        long box = Control.mailbox(s);
        Words.setPlain(c, box + Control.MB_OP, op);
        Words.setPlain(c, box + Control.MB_A, a);
        Words.setPlain(c, box + Control.MB_B, b);
        Words.setRelease(c, box + Control.MB_SEQ, s);
    }

    /** {@code null} if every PE published the same request as this one, else a description of all requests. */
    private String compare(long s, long op, long a, long b) {
        long box = Control.mailbox(s);
        boolean same = true;
        List<String> all = new ArrayList<>();
        for (int pe = 0; pe < comm.size(); pe++) {
            MemorySegment c = comm.control(pe);
            long theirSeq = Words.getAcquire(c, box + Control.MB_SEQ);
            long theirOp = Words.getPlain(c, box + Control.MB_OP);
            long theirA = Words.getPlain(c, box + Control.MB_A);
            long theirB = Words.getPlain(c, box + Control.MB_B);
            if (theirSeq != s) {
                same = false;
                all.add("rank " + pe + " made no matching heap call (it is at heap call #" + theirSeq + ", this is #" + s + ")");
                continue;
            }
            if (theirOp != op || theirA != a || theirB != b) same = false;
            all.add("rank " + pe + " " + describe(theirOp, theirA, theirB));
        }
        return same ? null : String.join(", ", all);
    }

    private static String describe(long op, long a, long b) {
        return op == OP_ALLOC ? "allocated " + a + " bytes (alignment " + b + ")"
                : "freed the buffer at offset " + a + " (" + b + " bytes)";
    }

    /** Invalidates every buffer still open (the communicator is closing). */
    synchronized void releaseAll() {
        for (ShmBuffer b : live) b.release();
        live.clear();
    }

    @Override public long capacity() { return allocator.capacity(); }

    @Override public synchronized long used() { return allocator.used(); }

    @Override public MemoryKind kind() { return MemoryKind.HOST; }
}
