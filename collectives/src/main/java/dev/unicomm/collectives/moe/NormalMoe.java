package dev.unicomm.collectives.moe;

import dev.unicomm.api.Combined;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.Dispatched;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.MoeHandle;
import dev.unicomm.api.MoeLayout;
import dev.unicomm.api.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Normal-mode dispatch/combine.
 *
 * <p>Dispatch (push, each token once per destination rank), as DeepEP's notify-then-dispatch: every
 * rank counts its rows per destination and publishes the {@code R} counts; a barrier; every rank
 * reads the counts (the count exchange: rows land by source rank, then token index, so a rank's rows
 * on rank r start after those of the lower ranks), then writes each of its tokens straight into the
 * receive area of every rank that hosts one of its experts, with the row's top-k ids (in that rank's
 * numbering) and weights beside it; a second barrier completes the data. No rank reads another's
 * ids: that cost R times the routing work per rank.
 *
 * <p>Combine (pull): each rank stages {@code y} in its receive area (nothing to copy when {@code y}
 * is the latest {@code recvX}, the usual in-place expert update); a barrier; each source rank
 * reads its tokens' rows from the ranks that got them and sums them in fp32, rounding once.
 *
 * <p>Symmetric layout ({@code T = maxTokensPerRank}, rows of {@code 2H} bytes; FP8 rows keep their
 * {@code H} codes first and all scales after the codes of the area):
 * {@code header(64) | counts max(12*T*K, 8R) | recvIdx R*T*K*8 | recvW R*T*K*4 | recvX R*T*2H}.
 * Private: the combine output {@code [T, H]} BF16 and {@code [T, K]} FP32, reused by every combine.
 */
class NormalMoe extends PortableMoe {
    @Override
    String algorithm() {
        return "flat";
    }

    private static final RowMath MATH = RowMath.BEST;
    // Header words, double-buffered by operation parity: a rank writes the next operation's words
    // only after a barrier every peer passes after reading the previous ones.
    static final long HDR_FLAGS = 8;
    static final long FLAG_WEIGHTS = 1, FLAG_FP8 = 2, FLAG_HIERARCHICAL = 4;
    final long counts, recvIdx, recvW, recvX;
    final int[] rankOf; // expert -> rank hosting it
    final Tensor out, outW;
    final RowGather rows; // combine: a batch of tokens' rows and weights, one of each per source rank
    final int combineBatch; // tokens per batch of combine reads
    final long[] metaIds; // dispatch: my rows' recvTopkIdx for one destination, before one bulk copy
    final float[] metaW; // dispatch: their weights, likewise
    NormalHandle latest;
    long ops;
    boolean lastWasCombine; // peers may still read our receive area right after a combine

    NormalMoe(Communicator comm, MoeConfig config) {
        super(comm, config);
        long t = maxTokens, k = topk, r = ranks;
        counts = MoeConfig.HEADER_BYTES;
        recvIdx = counts + Math.max(12 * t * k, 8 * r);
        recvW = recvIdx + r * t * k * 8;
        recvX = recvW + r * t * k * 4;
        if (recvX + r * t * 2 * hidden != buffer.byteSize())
            throw new IllegalStateException("normal MoE layout does not match sizeHint");
        rankOf = new int[ranks * numLocal];
        for (int e = 0; e < rankOf.length; e++) rankOf[e] = e / numLocal;
        out = Tensor.allocate(arena, DType.BF16, maxTokens, hidden);
        outW = Tensor.allocate(arena, DType.FP32, maxTokens, topk);
        combineBatch = RowGather.tokensPerBatch(maxTokens, combineBytesPerToken());
        rows = new RowGather(peers, arena, combineBatch * 2 * ranks, combineBatch * combineBytesPerToken());
        metaIds = new long[maxTokens * topk];
        metaW = new float[maxTokens * topk];
    }

    long hdr() {
        return 16 * (ops & 1);
    }

    @Override
    public long footprintBytes() {
        return buffer.byteSize() + out.byteSize() + outW.byteSize();
    }

    /** Routing of one dispatch, kept for combine and cached dispatch. */
    static class NormalHandle implements MoeHandle {
        final NormalMoe owner;
        final int tokens, recv;
        final int[] rowAt; // [T, R]: row of my token t on rank r, or -1
        final int[] perExpert; // numRecvTokensPerExpert as returned

        NormalHandle(NormalMoe owner, int tokens, int recv, int[] rowAt, int[] perExpert) {
            this.owner = owner;
            this.tokens = tokens;
            this.recv = recv;
            this.rowAt = rowAt;
            this.perExpert = perExpert;
        }

        @Override
        public MoeConfig.Mode mode() {
            return MoeConfig.Mode.NORMAL;
        }

        @Override
        public int numTokens() {
            return tokens;
        }

        @Override
        public int numRecvTokens() {
            return recv;
        }

        @Override
        public String toString() {
            return "normal handle: " + tokens + " tokens sent, " + recv + " received";
        }
    }

    @Override
    public Dispatched dispatch(Tensor x, Tensor scales, Tensor topkIdx, Tensor weights, MoeLayout layout, int align) {
        Exchange e = exchangeCounts(x, scales, topkIdx, weights);
        int[] firstRow = firstRows(e.counts(), me); // where my rows start on each rank
        e.placeRows(firstRow);
        pushRows(e.tokens(), e.rowAt(), x, scales, e.fp8(), null);
        pushRouting(e.tokens(), e.rowAt(), e.toRank(), firstRow, e.idx(), e.w(), null);
        comm.rma().quiet();
        comm.barrier(); // every row and its ids have landed; every peer is done reading our counts
        NormalHandle h = new NormalHandle(this, e.tokens(), e.recv(), e.rowAt(), perExpert(e.recv(), align));
        return dispatched(h, e.fp8(), weights != null);
    }

    @Override
    public Dispatched dispatch(Tensor x, Tensor scales, MoeHandle handle) {
        ensureOpen();
        count("cachedDispatch");
        NormalHandle h = own(handle);
        boolean fp8 = startCachedDispatch(x, scales);
        pushRows(h.tokens, h.rowAt, x, scales, fp8, null);
        comm.rma().quiet();
        comm.barrier();
        return cachedDispatched(h, fp8);
    }

    @Override
    public Combined combine(Tensor y, MoeHandle handle, Tensor weights) {
        ensureOpen();
        count("combine");
        NormalHandle h = own(handle);
        long rowBytes = 2L * hidden;
        startCombine(y, weights, h);

        MemorySegment o = out.segment();
        MemorySegment ow = outW.segment();
        float[] scratch = new float[hidden], accW = new float[topk];
        MemorySegment[] segs = new MemorySegment[ranks];
        long[] offs = new long[ranks];
        for (int t0 = 0; t0 < h.tokens; t0 += combineBatch) {
            int t1 = Math.min(h.tokens, t0 + combineBatch);
            // A batch of tokens' rows (and weights) is read first, one wait for all, then summed: a peer reached
            // only by RMA costs a round trip per batch, not per row. Entry 2n: row; 2n + 1: weights. Rank by rank,
            // token by token: my rows lie in token order on each rank, so each rank's reads merge into one get.
            rows.start();
            for (int r = 0; r < ranks; r++) {
                for (int t = t0; t < t1; t++) {
                    int at = h.rowAt[t * ranks + r];
                    if (at >= 0) rows.read(2 * ((t - t0) * ranks + r), r, recvX + at * rowBytes, rowBytes);
                }
                if (weights != null)
                    for (int t = t0; t < t1; t++) {
                        int at = h.rowAt[t * ranks + r];
                        if (at >= 0)
                            rows.read(2 * ((t - t0) * ranks + r) + 1, r, recvW + (long) at * topk * 4, topk * 4L);
                    }
            }
            rows.await();
            for (int t = t0; t < t1; t++) {
                int count = 0;
                for (int r = 0; r < ranks; r++) {
                    if (h.rowAt[t * ranks + r] < 0) continue;
                    int n = (t - t0) * ranks + r;
                    if (weights != null) {
                        MemorySegment ws = rows.segs[2 * n + 1];
                        long wo = rows.offsets[2 * n + 1];
                        for (int k = 0; k < topk; k++) {
                            float w = ws.get(ValueLayout.JAVA_FLOAT_UNALIGNED, wo + 4L * k);
                            accW[k] = count == 0 ? w : accW[k] + w;
                        }
                    }
                    segs[count] = rows.segs[2 * n];
                    offs[count++] = rows.offsets[2 * n];
                }
                long dst = t * rowBytes;
                if (count == 0) {
                    o.asSlice(dst, rowBytes).fill((byte) 0); // sent nowhere: zeros
                    Arrays.fill(accW, 0f);
                } else if (count == 1) {
                    MemorySegment.copy(segs[0], offs[0], o, dst, rowBytes); // one source: the sum is the row itself
                } else {
                    MATH.sum(segs, offs, count, scratch, o, dst, hidden);
                }
                if (weights != null)
                    MemorySegment.copy(accW, 0, ow, ValueLayout.JAVA_FLOAT_UNALIGNED, (long) t * topk * 4, topk);
            }
        }
        return combined(h, weights != null);
    }

    /** The most bytes a combine reads for one token: a row and its weights from each rank. */
    private long combineBytesPerToken() {
        return ranks * (2L * hidden + 4L * topk);
    }

    NormalHandle own(MoeHandle handle) {
        if (handle instanceof NormalHandle h && h.owner == this) return h;
        throw new IllegalArgumentException("handle was not made by this normal MoE buffer: " + handle);
    }

    /** Publishes the input kind in this operation's header word. */
    void publish(boolean fp8, boolean weights) {
        local.set(
                ValueLayout.JAVA_LONG,
                hdr() + HDR_FLAGS,
                (weights ? FLAG_WEIGHTS : 0) | (fp8 ? FLAG_FP8 : 0) | algorithmFlag());
    }

    /** Set in every header word by the two-level subclass, so ranks that chose different algorithms fail the agreement. */
    long algorithmFlag() {
        return 0;
    }

    /** Bytes this buffer moved to and from ranks on other hosts so far (tests and benchmarks compare algorithms with it). */
    long interHostBytes() {
        return peers.remoteBytes;
    }

    /** Every rank must have passed the same kind of input (dtype, weights or not). */
    void agree(long[] flags, String op) {
        for (int s = 1; s < ranks; s++)
            if (flags[s] != flags[0])
                throw new IllegalArgumentException(
                        op + ": ranks disagree on the input: rank 0 passed " + describe(flags[0]) + ", rank " + s + " "
                                + describe(flags[s])
                                + "; every rank must pass the same dtype and weights or none, and choose the same unicomm.moe.algorithm");
    }

    static String describe(long flags) {
        return ((flags & FLAG_FP8) != 0 ? "FP8 x" : "BF16 x")
                + ((flags & FLAG_WEIGHTS) != 0 ? " with weights" : " without weights")
                + ((flags & FLAG_HIERARCHICAL) != 0 ? " (two-level algorithm)" : " (flat algorithm)");
    }

    /** {@code y} must be the latest recvX itself (no copy) or memory outside the receive area (copied in). */
    void stageInPlace(String what, Tensor y, MemorySegment area, NormalHandle h) {
        if (startsAt(y, area) && latest == h) return;
        if (overlaps(y, local.asSlice(recvIdx, buffer.byteSize() - recvIdx)))
            throw new IllegalStateException(
                    what + " is a view of this buffer's receive area that a later dispatch or combine "
                            + "overwrote; copy dispatch results you need beyond the next operation");
        area.copyFrom(y.segment().asSlice(0, area.byteSize()));
    }

    /**
     * Which ranks get each of my {@code t} tokens (a rank hosting any of its experts): fills
     * {@code rowAt[i * R + r]} with the token's index among my rows to rank r, or -1, and returns the
     * row count per rank. One pass over my own ids, a table lookup per id and a per-token stamp.
     */
    int[] destinations(long[] idx, int t, int[] rowAt) {
        Arrays.fill(rowAt, -1);
        int[] toRank = new int[ranks];
        int[] seen = new int[ranks];
        for (int i = 0; i < t; i++) {
            int stamp = i + 1;
            for (int k = 0, at = i * topk; k < topk; k++, at++) {
                long e = idx[at];
                if (e < 0) continue;
                int r = rankOf[(int) e];
                if (seen[r] == stamp) continue;
                seen[r] = stamp;
                rowAt[i * ranks + r] = toRank[r]++;
            }
        }
        return toRank;
    }

    /**
     * Writes beside each row I pushed its {@code recvTopkIdx} (ids of the receiving rank's experts in its
     * local numbering, -1 for the others) and, with {@code w}, its weights (0 for the others): my rows on
     * rank r are the contiguous block from {@code firstRow[r]}, built in {@link #metaIds}/{@link #metaW}
     * and copied in one piece (element-wise stores into a peer's mapping ran 4-8x slower), or put
     * through private memory for a peer reached by RMA.
     */
    void pushRouting(int t, int[] rowAt, int[] toRank, int[] firstRow, long[] idx, float[] w, boolean[] to) {
        for (int r = 0; r < ranks; r++) {
            if (toRank[r] == 0 || (to != null && !to[r])) continue;
            int lo = r * numLocal, j = 0;
            for (int i = 0; i < t; i++) {
                if (rowAt[i * ranks + r] < 0) continue;
                // Branch-free: about one id in R is rank r's, so a branch on it mispredicts (2.5x slower, measured).
                for (int k = 0, at = i * topk; k < topk; k++, at++, j++) {
                    long d = idx[at] - lo;
                    long mine = ~((d | (numLocal - 1 - d)) >> 63); // all ones where 0 <= d < numLocal
                    metaIds[j] = d | ~mine;
                    if (w != null) metaW[j] = Float.intBitsToFloat(Float.floatToRawIntBits(w[at]) & (int) mine);
                }
            }
            writeRouting(r, firstRow[r], j, w != null);
        }
    }

    /** numRecvTokensPerExpert: the received ids per local expert, each rounded up to {@code align}. */
    int[] perExpert(int n, int align) {
        int[] seen = new int[numLocal + 1]; // [0]: unused slots (-1); no branch on the ids, which pushRouting wrote
        for (long j = 0, end = (long) n * topk; j < end; j++)
            seen[(int) local.get(ValueLayout.JAVA_LONG_UNALIGNED, recvIdx + 8 * j) + 1]++;
        int[] perExpert = new int[numLocal];
        for (int e = 0; e < numLocal; e++) perExpert[e] = (seen[e + 1] + align - 1) / align * align;
        return perExpert;
    }

    /**
     * Writes each of my tokens into the receive area of every rank that gets it. Mapped peers: token by
     * token, the row read once (it stays in cache) and stored to each of its ranks: a token goes to about
     * three of four ranks, and reading {@code x} once per rank instead made the push 25 % slower (one
     * core copied 5.2 GB/s one-to-four against 4.1 one-to-one on the 2-core VM). Peers reached by RMA:
     * rank by rank, coalescing runs of consecutive rows into one put.
     */
    void pushRows(int tokens, int[] rowAt, Tensor x, Tensor scales, boolean fp8, boolean[] to) {
        long rowBytes = fp8 ? hidden : 2L * hidden, scaleBytes = hidden / 32;
        long dstScales = recvX + (long) ranks * maxTokens * hidden;
        MemorySegment xs = x.segment(), ss = fp8 ? scales.segment() : null;
        MemorySegment[] mapped = new MemorySegment[ranks];
        int[] order = new int[ranks]; // start with the next rank so ranks do not all write to one peer at once
        boolean anyMapped = false, anyRma = false;
        for (int step = 1; step <= ranks; step++) {
            int r = order[step - 1] = (me + step) % ranks;
            if (to != null && !to[r]) continue;
            mapped[r] = peers.direct(r);
            anyMapped |= mapped[r] != null;
            anyRma |= mapped[r] == null;
        }
        if (anyMapped) {
            for (int t = 0; t < tokens; t++) {
                for (int r : order) {
                    int at = rowAt[t * ranks + r];
                    if (at < 0 || mapped[r] == null) continue;
                    MemorySegment.copy(xs, t * rowBytes, mapped[r], recvX + at * rowBytes, rowBytes);
                    if (fp8) MemorySegment.copy(ss, t * scaleBytes, mapped[r], dstScales + at * scaleBytes, scaleBytes);
                }
            }
        }
        if (!anyRma) return;
        for (int r : order) {
            if (mapped[r] != null || (to != null && !to[r])) continue;
            for (int t = 0; t < tokens; ) {
                int at = rowAt[t * ranks + r];
                if (at < 0) {
                    t++;
                    continue;
                }
                int len = 1;
                while (t + len < tokens && rowAt[(t + len) * ranks + r] == at + len) len++;
                put(r, recvX + at * rowBytes, xs, t * rowBytes, len * rowBytes, true);
                if (fp8) put(r, dstScales + at * scaleBytes, ss, t * scaleBytes, len * scaleBytes, true);
                t += len;
            }
        }
    }

    /** A put to rank r; non-blocking ones need {@code src} to stay valid until the next quiet. */
    void put(int r, long offset, MemorySegment src, long srcOffset, long bytes, boolean nonBlocking) {
        peers.wrote(r, bytes);
        if (nonBlocking) comm.rma().putNbi(buffer, offset, dev.unicomm.api.Memory.of(src), srcOffset, bytes, r);
        else comm.rma().put(buffer, offset, dev.unicomm.api.Memory.of(src), srcOffset, bytes, r);
    }

    /**
     * Writes the {@code j} tokens' top-k ids staged in {@link #metaIds} (and their weights from {@link #metaW}) into
     * rank {@code r}'s routing area from row {@code firstRow} on: stores where the peer is mapped, else RMA through one staging block.
     */
    final void writeRouting(int r, int firstRow, int j, boolean withWeights) {
        long idxAt = recvIdx + (long) firstRow * topk * 8, wAt = recvW + (long) firstRow * topk * 4;
        MemorySegment dst = peers.direct(r);
        if (dst != null) {
            MemorySegment.copy(metaIds, 0, dst, ValueLayout.JAVA_LONG_UNALIGNED, idxAt, j);
            if (withWeights) MemorySegment.copy(metaW, 0, dst, ValueLayout.JAVA_FLOAT_UNALIGNED, wAt, j);
            return;
        }
        try (Arena staging = Arena.ofConfined()) {
            MemorySegment block = staging.allocate(12L * j, 8);
            MemorySegment.copy(metaIds, 0, block, ValueLayout.JAVA_LONG_UNALIGNED, 0, j);
            put(r, idxAt, block, 0, 8L * j, false);
            if (withWeights) {
                MemorySegment.copy(metaW, 0, block, ValueLayout.JAVA_FLOAT_UNALIGNED, 8L * j, j);
                put(r, wAt, block, 8L * j, 4L * j, false);
            }
        }
    }

    /** Every rank's header flags word (after a barrier that follows their publishing). */
    final long[] peerFlags() {
        long[] flags = new long[ranks];
        for (int s = 0; s < ranks; s++) flags[s] = peers.readLongs(s, hdr() + HDR_FLAGS, 1)[0];
        return flags;
    }

    /** A cached dispatch's start: checks the tensors, publishes this rank's flags and agrees them with every rank; whether x is FP8. */
    /**
     * A first dispatch after the counts exchange: its inputs as read, each token's row in its per-destination order
     * ({@code rowAt[i * ranks + r]}, -1 where token i does not go to rank r), rows per destination, every rank's
     * counts ({@code counts[s][r]}: rows rank s sends to rank r) and the rows this rank receives.
     */
    record Exchange(
            int tokens, boolean fp8, long[] idx, float[] w, int[] rowAt, int[] toRank, long[][] counts, int recv) {

        /** Turns each row's per-destination order into its row in the destination's receive area. */
        void placeRows(int[] firstRow) {
            int ranks = toRank.length;
            for (int i = 0, at = 0; i < tokens; i++)
                for (int r = 0; r < ranks; r++, at++) if (rowAt[at] >= 0) rowAt[at] += firstRow[r];
        }
    }

    /**
     * The start of a first dispatch, the same for both algorithms: the inputs checked and read, each token's
     * destinations, this rank's counts and flags published, then every rank's counts read back and the flags agreed.
     */
    final Exchange exchangeCounts(Tensor x, Tensor scales, Tensor topkIdx, Tensor weights) {
        ensureOpen();
        count("dispatch");
        int t = (int) host("topkIdx", topkIdx).dim(0);
        boolean fp8 = host("x", x).dtype() == DType.FP8_E4M3;
        host("scales", scales);
        long[] idx = longs(topkIdx);
        float[] w = weights == null
                ? null
                : host("topkWeights", weights).segment().toArray(ValueLayout.JAVA_FLOAT_UNALIGNED);
        int[] rowAt = new int[t * ranks];
        int[] toRank = destinations(idx, t, rowAt);
        MemorySegment.copy(
                Arrays.stream(toRank).asLongStream().toArray(),
                0,
                local,
                ValueLayout.JAVA_LONG_UNALIGNED,
                counts,
                ranks);
        publish(fp8, weights != null);
        comm.barrier();

        long[] flags = new long[ranks];
        long[][] c = new long[ranks][];
        int n = 0;
        for (int s = 0; s < ranks; s++) {
            flags[s] = peers.readLongs(s, hdr() + HDR_FLAGS, 1)[0];
            c[s] = peers.readLongs(s, counts, ranks);
            n = Math.addExact(n, Math.toIntExact(c[s][me]));
        }
        agree(flags, "dispatch");
        return new Exchange(t, fp8, idx, w, rowAt, toRank, c, n);
    }

    /** Where the rows of rank {@code s} start on every rank: the sum of the counts of the ranks before it. */
    final int[] firstRows(long[][] c, int s) {
        int[] first = new int[ranks];
        for (int q = 0; q < s; q++) for (int r = 0; r < ranks; r++) first[r] += (int) c[q][r];
        return first;
    }

    /**
     * A combine's start, the same for both algorithms: the expert outputs (and weights) staged in this rank's receive
     * area once the previous combine's readers are done, the flags published and agreed.
     */
    final void startCombine(Tensor y, Tensor weights, NormalHandle h) {
        int n = h.recv;
        if (lastWasCombine) comm.barrier(); // the previous combine's readers of our receive area are done
        lastWasCombine = true;
        stageInPlace("y", host("y", y), local.asSlice(recvX, n * 2L * hidden), h);
        if (weights != null)
            stageInPlace("topkWeights", host("topkWeights", weights), local.asSlice(recvW, (long) n * topk * 4), h);
        local.set(ValueLayout.JAVA_LONG, hdr() + HDR_FLAGS, (weights != null ? FLAG_WEIGHTS : 0) | algorithmFlag());
        comm.barrier();
        long[] flags = peerFlags();
        ops++;
        agree(flags, "combine");
    }

    final boolean startCachedDispatch(Tensor x, Tensor scales) {
        boolean fp8 = host("x", x).dtype() == DType.FP8_E4M3;
        host("scales", scales);
        publish(fp8, false);
        comm.barrier();
        agree(peerFlags(), "cached dispatch");
        return fp8;
    }

    /** A first dispatch's result: {@code h} becomes the latest layout; the received ids (and weights, if sent) are views of this rank's area. */
    final Dispatched dispatched(NormalHandle h, boolean fp8, boolean withWeights) {
        int n = h.recv;
        MemorySegment idxSeg = local.asSlice(recvIdx, (long) n * topk * 8);
        MemorySegment wSeg = withWeights ? local.asSlice(recvW, (long) n * topk * 4) : null;
        ops++;
        lastWasCombine = false;
        latest = h;
        return result(
                h,
                fp8,
                Tensor.of(idxSeg, DType.INT64, n, topk),
                wSeg == null ? null : Tensor.of(wSeg, DType.FP32, n, topk));
    }

    /** A combine's result: the first {@code h.tokens} rows of the output area (and weights) as tensors. */
    final Combined combined(NormalHandle h, boolean withWeights) {
        MemorySegment o = out.segment(), ow = outW.segment();
        return new Combined(
                Tensor.of(o.asSlice(0, h.tokens * 2L * hidden), DType.BF16, h.tokens, hidden),
                withWeights ? Tensor.of(ow.asSlice(0, (long) h.tokens * topk * 4), DType.FP32, h.tokens, topk) : null);
    }

    /** A cached dispatch's result (the ids and weights were received by the first dispatch of {@code h}). */
    final Dispatched cachedDispatched(NormalHandle h, boolean fp8) {
        ops++;
        lastWasCombine = false;
        latest = h;
        return result(h, fp8, null, null);
    }

    Dispatched result(NormalHandle h, boolean fp8, Tensor idx, Tensor w) {
        int n = h.recv;
        long rowBytes = fp8 ? hidden : 2L * hidden;
        Tensor x = Tensor.of(local.asSlice(recvX, n * rowBytes), fp8 ? DType.FP8_E4M3 : DType.BF16, n, hidden);
        Tensor s = fp8
                ? Tensor.of(
                        local.asSlice(recvX + (long) ranks * maxTokens * hidden, (long) n * hidden / 32),
                        DType.FP32,
                        n,
                        hidden / 128)
                : null;
        return new Dispatched(x, s, idx, w, h.perExpert.clone(), h);
    }
}
