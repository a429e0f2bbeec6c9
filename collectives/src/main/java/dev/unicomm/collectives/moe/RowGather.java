package dev.unicomm.collectives.moe;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The rows a combine step reads ({@link RowMath}'s {@code segs}/{@code offsets}), for one token or a batch of
 * tokens: rows of mapped peers are read in place; a peer that is not mapped here has its row fetched by a
 * non-blocking RMA get into a staging area (allocated on first use, kept for later calls), and {@link #await}
 * completes every fetch of the batch with one quiet; reads that continue the previous one (same peer, next bytes
 * there and in the staging area) are merged into one get. A backend that reaches its peers only by RMA so pays
 * one round trip per batch, not one per row, and a few large gets rather than many small ones: over UCX's TCP
 * transport each blocking get is a round trip the peer's worker must serve, and a low-latency combine of 32 tokens
 * that read its 64 rows one by one took 3-100 ms by the host's load, against a copy bound of about 1 ms
 * (BENCHMARKS.md, backend-ucx).
 *
 * <p>Use: {@link #start}, {@link #read} each entry, {@link #await}, then read {@code segs[j]} at
 * {@code offsets[j]} until the next {@link #start}. Reading a peer's rows in the order they lie there (peer by
 * peer) lets them merge.
 */
final class RowGather {
    /** Staging bytes one batch may use; {@link #tokensPerBatch} sizes batches of tokens to it. */
    static final long BATCH_BYTES = 1L << 20;

    final MemorySegment[] segs;
    final long[] offsets;
    private final Peers peers;
    private final Arena arena;
    private final long capacity;
    private MemorySegment staging;
    private long used;
    private boolean fetching;
    private int runPe = -1; // the read not yet issued: runBytes at runFrom of runPe's copy, into staging at runAt
    private long runFrom, runAt, runBytes;

    /**
     * @param entries  the most entries one batch reads
     * @param capacity the most bytes one batch fetches from peers that are not mapped
     */
    RowGather(Peers peers, Arena arena, int entries, long capacity) {
        this.peers = peers;
        this.arena = arena;
        this.capacity = capacity;
        this.segs = new MemorySegment[entries];
        this.offsets = new long[entries];
    }

    /** How many of {@code tokens} tokens fit one batch of {@link #BATCH_BYTES} when each reads up to {@code bytesPerToken}. */
    static int tokensPerBatch(int tokens, long bytesPerToken) {
        return (int) Math.max(1, Math.min(tokens, BATCH_BYTES / Math.max(1, bytesPerToken)));
    }

    /** Begins a batch: the previous batch's entries are no longer read. */
    void start() {
        used = 0;
    }

    /** Makes entry {@code j} the {@code bytes} at {@code offset} of {@code pe}'s copy (fetched ones: after {@link #await}). */
    void read(int j, int pe, long offset, long bytes) {
        MemorySegment src = peers.direct(pe);
        if (src == null) {
            if (used + bytes > capacity)
                throw new IllegalStateException(
                        "row batch of " + (used + bytes) + " bytes exceeds its staging area of " + capacity);
            if (staging == null) staging = arena.allocate(capacity, 64);
            if (pe == runPe && offset == runFrom + runBytes && used == runAt + runBytes) runBytes += bytes;
            else {
                issue();
                runPe = pe;
                runFrom = offset;
                runAt = used;
                runBytes = bytes;
            }
            src = staging;
            offset = used;
            used += bytes;
        }
        segs[j] = src;
        offsets[j] = offset;
    }

    /** Completes this batch's fetches (one quiet, only if any was issued). */
    void await() {
        issue();
        if (!fetching) return;
        peers.completeReads();
        fetching = false;
    }

    private void issue() {
        if (runPe < 0) return;
        fetching |= peers.readNbi(runPe, runFrom, staging, runAt, runBytes);
        runPe = -1;
    }
}
