package dev.unicomm.collectives.moe;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The rows one combine step sums ({@link RowMath}'s {@code segs}/{@code offsets}): rows of mapped
 * peers are read in place; a peer that is not mapped here has its row fetched by RMA into staging row
 * {@code j} first (allocated on first use, kept for later calls).
 */
final class RowGather {
    final MemorySegment[] segs;
    final long[] offsets;
    private final Peers peers;
    private final Arena arena;
    private final long rowBytes;
    private MemorySegment staging;

    RowGather(Peers peers, Arena arena, int rows, long rowBytes) {
        this.peers = peers;
        this.arena = arena;
        this.rowBytes = rowBytes;
        this.segs = new MemorySegment[rows];
        this.offsets = new long[rows];
    }

    /** Makes row {@code j} the row at {@code offset} of {@code pe}'s copy. */
    void set(int j, int pe, long offset) {
        MemorySegment src = peers.direct(pe);
        if (src == null) {
            if (staging == null) staging = arena.allocate(segs.length * rowBytes, 64);
            peers.read(pe, offset, staging, j * rowBytes, rowBytes);
            src = staging;
            offset = j * rowBytes;
        }
        segs[j] = src;
        offsets[j] = offset;
    }
}
