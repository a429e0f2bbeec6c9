package dev.unicomm.backend.ascend.internal;

import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.OutOfSymmetricMemoryException;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.SymmetricHeap;
import dev.unicomm.spi.Store;
import java.nio.charset.StandardCharsets;

/**
 * The PE's part of Ascend SHMEM's symmetric heap. Allocation is collective, as in aclshmem: before
 * calling {@code aclshmem_align}, the PEs compare size and alignment through the rendezvous store,
 * so a mismatch is an {@link IllegalArgumentException} on every PE instead of a NULL from the
 * library (or a hang). Offsets are taken from the heap's first block, which the backend allocates
 * at open (the device staging buffer, or a small anchor on a host-side heap).
 */
final class AscendHeap implements SymmetricHeap {
    /** Native alignment floor: keeps 32-bit signal words and 64-bit words naturally aligned. */
    static final long MIN_ALIGNMENT = 64;

    final boolean hostSide;
    private final MemoryKind kind;
    private final long capacity;
    private final long base;
    private final int rank;
    private final int size;
    private final Store store;
    private long used;
    private long sequence;

    AscendHeap(
            boolean hostSide,
            MemoryKind kind,
            long capacity,
            long base,
            long reservedAtOpen,
            int rank,
            int size,
            Store store) {
        this.hostSide = hostSide;
        this.kind = kind;
        this.capacity = capacity;
        this.base = base;
        this.used = reservedAtOpen;
        this.rank = rank;
        this.size = size;
        this.store = store;
    }

    @Override
    public synchronized SymmetricBuffer allocate(long bytes, long alignment) {
        long align = Math.max(alignment, MIN_ALIGNMENT);
        long n = Math.max(bytes, 1); // aclshmem returns NULL for 0 bytes; a 0-byte buffer still gets its own offset
        agree(bytes, alignment);
        long free = capacity - used;
        if (n > free || n + (align - 1) > free)
            throw new OutOfSymmetricMemoryException(bytes, alignment, capacity, used);
        long reserve = (n + align - 1) / align * align;
        long ptr = AscendNatives.align(align, n, hostSide);
        if (ptr == 0) throw new OutOfSymmetricMemoryException(bytes, alignment, capacity, used);
        used += reserve;
        return new AscendBuffer(this, ptr, bytes, ptr - base, reserve);
    }

    /** Every PE must ask for the same size and alignment in the same order (aclshmem_align is collective). */
    private void agree(long bytes, long alignment) {
        long seq = sequence++;
        if (size == 1) return;
        String mine = bytes + "/" + alignment;
        store.set(key(seq, rank), mine.getBytes(StandardCharsets.UTF_8));
        StringBuilder diff = new StringBuilder();
        for (int r = 0; r < size; r++) {
            String theirs = r == rank ? mine : new String(store.get(key(seq, r)), StandardCharsets.UTF_8);
            if (!theirs.equals(mine))
                diff.append(" rank ")
                        .append(r)
                        .append(" asked ")
                        .append(describe(theirs))
                        .append(';');
        }
        if (!diff.isEmpty())
            throw new IllegalArgumentException("symmetric allocation #" + seq + " differs between PEs: this PE (rank "
                    + rank + ") asked " + describe(mine) + ";" + diff
                    + " every PE must allocate the same size and alignment in the same order");
    }

    private static String key(long seq, int rank) {
        return "unicomm/ascend/alloc/" + seq + "/" + rank;
    }

    private static String describe(String sizeSlashAlign) {
        String[] p = sizeSlashAlign.split("/");
        return p[0] + " bytes aligned to " + p[1];
    }

    synchronized void free(AscendBuffer b) {
        AscendNatives.free(b.ptr, hostSide);
        used -= b.reserved;
    }

    @Override
    public long capacity() {
        return capacity;
    }

    @Override
    public synchronized long used() {
        return used;
    }

    @Override
    public MemoryKind kind() {
        return kind;
    }
}
