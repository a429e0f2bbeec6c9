package dev.unicomm.collectives.moe;

import dev.unicomm.api.Combined;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.Dispatched;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.MoeHandle;
import dev.unicomm.api.MoeLayout;
import dev.unicomm.api.Tensor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Normal-mode dispatch/combine.
 *
 * <p>Dispatch (push, each token once per destination rank): every rank publishes its top-k ids
 * and weights; a barrier; every rank reads every rank's ids (the count exchange: all agree on the
 * routing and on where each row lands: by source rank, then token index), writes each of its
 * tokens straight into the receive area of every rank that hosts one of its experts, and builds
 * its own {@code recvTopkIdx}/{@code recvTopkWeights}; a second barrier completes the data.
 *
 * <p>Combine (pull): each rank stages {@code y} in its receive area (nothing to copy when {@code y}
 * is the latest {@code recvX}, the usual in-place expert update); a barrier; each source rank
 * reads its tokens' rows from the ranks that got them and sums them in fp32, rounding once.
 *
 * <p>Symmetric layout ({@code T = maxTokensPerRank}, rows of {@code 2H} bytes; FP8 rows keep their
 * {@code H} codes first and all scales after the codes of the area):
 * {@code header(64) | sendIdx T*K*8 | recvIdx R*T*K*8 | sendW T*K*4 | recvW R*T*K*4 | recvX R*T*2H}.
 * Private: the combine output {@code [T, H]} BF16 and {@code [T, K]} FP32, reused by every combine.
 */
final class NormalMoe extends PortableMoe {
    private static final RowMath MATH = RowMath.BEST;
    // Header words, double-buffered by operation parity: a rank writes the next operation's words
    // only after a barrier every peer passes after reading the previous ones.
    private static final long HDR_TOKENS = 0, HDR_FLAGS = 8;
    private static final long FLAG_WEIGHTS = 1, FLAG_FP8 = 2;

    private final long sendIdx, recvIdx, sendW, recvW, recvX;
    private final int[] rankOf; // expert -> rank hosting it
    private final Tensor out, outW;
    private final RowGather rows; // combine: a token's rows, one per source rank
    private final long[] recvIdxRows; // dispatch: recvTopkIdx as the route builds it, before one bulk copy
    private final float[] recvWRows;  // dispatch: recvTopkWeights, likewise
    private NormalHandle latest;
    private long ops;
    private boolean lastWasCombine; // peers may still read our receive area right after a combine

    NormalMoe(Communicator comm, MoeConfig config) {
        super(comm, config);
        long t = maxTokens, k = topk, r = ranks;
        sendIdx = MoeConfig.HEADER_BYTES;
        recvIdx = sendIdx + t * k * 8;
        sendW = recvIdx + r * t * k * 8;
        recvW = sendW + t * k * 4;
        recvX = recvW + r * t * k * 4;
        if (recvX + r * t * 2 * hidden != buffer.byteSize()) throw new IllegalStateException("normal MoE layout does not match sizeHint");
        rankOf = new int[ranks * numLocal];
        for (int e = 0; e < rankOf.length; e++) rankOf[e] = e / numLocal;
        out = Tensor.allocate(arena, DType.BF16, maxTokens, hidden);
        outW = Tensor.allocate(arena, DType.FP32, maxTokens, topk);
        rows = new RowGather(peers, arena, ranks, 2L * hidden);
        recvIdxRows = new long[ranks * maxTokens * topk];
        recvWRows = new float[ranks * maxTokens * topk];
    }

    private long hdr() { return 16 * (ops & 1); }

    @Override public long footprintBytes() { return buffer.byteSize() + out.byteSize() + outW.byteSize(); }

    /** Routing of one dispatch, kept for combine and cached dispatch. */
    static final class NormalHandle implements MoeHandle {
        final NormalMoe owner;
        final int tokens, recv;
        final int[] srcRank, srcToken; // per received row
        final int[] rowAt;             // [T, R]: row of my token t on rank r, or -1
        final int[] perExpert;         // numRecvTokensPerExpert as returned

        NormalHandle(NormalMoe owner, int tokens, int[] srcRank, int[] srcToken, int[] rowAt, int[] perExpert) {
            this.owner = owner;
            this.tokens = tokens;
            this.recv = srcRank.length;
            this.srcRank = srcRank;
            this.srcToken = srcToken;
            this.rowAt = rowAt;
            this.perExpert = perExpert;
        }

        @Override public MoeConfig.Mode mode() { return MoeConfig.Mode.NORMAL; }
        @Override public int numTokens() { return tokens; }
        @Override public int numRecvTokens() { return recv; }
        @Override public String toString() { return "normal handle: " + tokens + " tokens sent, " + recv + " received"; }
    }

    @Override public Dispatched dispatch(Tensor x, Tensor scales, Tensor topkIdx, Tensor weights, MoeLayout layout, int align) {
        ensureOpen();
        int t = (int) host("topkIdx", topkIdx).dim(0);
        boolean fp8 = host("x", x).dtype() == DType.FP8_E4M3;
        host("scales", scales);
        host("topkWeights", weights);
        local.asSlice(sendIdx, (long) t * topk * 8).copyFrom(topkIdx.segment());
        if (weights != null) local.asSlice(sendW, (long) t * topk * 4).copyFrom(weights.segment());
        publish(t, fp8, weights != null);
        comm.barrier();

        long[] flags = new long[ranks];
        long[][] ids = new long[ranks][];
        for (int s = 0; s < ranks; s++) {
            long[] hdr = peers.readLongs(s, hdr(), 2);
            flags[s] = hdr[1];
            ids[s] = peers.readLongs(s, sendIdx, (int) hdr[0] * topk);
        }
        agree(flags, "dispatch");
        float[][] srcW = null;
        if (weights != null) {
            srcW = new float[ranks][];
            for (int s = 0; s < ranks; s++) srcW[s] = peers.readFloats(s, sendW, ids[s].length);
        }
        NormalHandle h = route(t, ids, srcW, align);
        pushRows(h, x, scales, fp8);

        int n = h.recv;
        long[] idxOut = recvIdxRows;
        float[] wOut = weights == null ? null : recvWRows;
        MemorySegment idxSeg = local.asSlice(recvIdx, (long) n * topk * 8);
        MemorySegment.copy(idxOut, 0, idxSeg, ValueLayout.JAVA_LONG_UNALIGNED, 0, n * topk);
        MemorySegment wSeg = wOut == null ? null : local.asSlice(recvW, (long) n * topk * 4);
        if (wSeg != null) MemorySegment.copy(wOut, 0, wSeg, ValueLayout.JAVA_FLOAT_UNALIGNED, 0, n * topk);
        comm.rma().quiet();
        comm.barrier(); // every row has landed; every peer is done reading our ids and weights
        ops++;
        lastWasCombine = false;
        latest = h;
        return result(h, fp8, Tensor.of(idxSeg, DType.INT64, n, topk), wSeg == null ? null : Tensor.of(wSeg, DType.FP32, n, topk));
    }

    @Override public Dispatched dispatch(Tensor x, Tensor scales, MoeHandle handle) {
        ensureOpen();
        NormalHandle h = own(handle);
        boolean fp8 = host("x", x).dtype() == DType.FP8_E4M3;
        host("scales", scales);
        publish(h.tokens, fp8, false);
        comm.barrier();
        long[] flags = new long[ranks];
        for (int s = 0; s < ranks; s++) flags[s] = peers.readLongs(s, hdr() + HDR_FLAGS, 1)[0];
        agree(flags, "cached dispatch");
        pushRows(h, x, scales, fp8);
        comm.rma().quiet();
        comm.barrier();
        ops++;
        lastWasCombine = false;
        latest = h;
        return result(h, fp8, null, null);
    }

    @Override public Combined combine(Tensor y, MoeHandle handle, Tensor weights) {
        ensureOpen();
        NormalHandle h = own(handle);
        int n = h.recv;
        long rowBytes = 2L * hidden;
        if (lastWasCombine) comm.barrier(); // the previous combine's readers of our receive area are done
        lastWasCombine = true;
        stageInPlace("y", host("y", y), local.asSlice(recvX, n * rowBytes), h);
        if (weights != null) stageInPlace("topkWeights", host("topkWeights", weights), local.asSlice(recvW, (long) n * topk * 4), h);
        local.set(ValueLayout.JAVA_LONG, hdr() + HDR_FLAGS, weights != null ? FLAG_WEIGHTS : 0);
        comm.barrier();
        long[] flags = new long[ranks];
        for (int s = 0; s < ranks; s++) flags[s] = peers.readLongs(s, hdr() + HDR_FLAGS, 1)[0];
        ops++;
        agree(flags, "combine");

        MemorySegment o = out.segment();
        MemorySegment ow = outW.segment();
        float[] scratch = new float[hidden], accW = new float[topk];
        int[] fromRank = new int[ranks], fromRow = new int[ranks];
        for (int t = 0; t < h.tokens; t++) {
            int count = 0;
            for (int r = 0; r < ranks; r++) {
                int at = h.rowAt[t * ranks + r];
                if (at < 0) continue;
                if (weights != null) {
                    float[] w = peers.readFloats(r, recvW + (long) at * topk * 4, topk);
                    for (int k = 0; k < topk; k++) accW[k] = count == 0 ? w[k] : accW[k] + w[k];
                }
                fromRank[count] = r;
                fromRow[count++] = at;
            }
            long dst = t * rowBytes;
            if (count == 0) {
                o.asSlice(dst, rowBytes).fill((byte) 0); // sent nowhere: zeros
                Arrays.fill(accW, 0f);
            } else if (count == 1) {
                peers.read(fromRank[0], recvX + fromRow[0] * rowBytes, o, dst, rowBytes); // one source: the sum is the row itself
            } else {
                for (int j = 0; j < count; j++) rows.set(j, fromRank[j], recvX + fromRow[j] * rowBytes);
                MATH.sum(rows.segs, rows.offsets, count, scratch, o, dst, hidden);
            }
            if (weights != null) MemorySegment.copy(accW, 0, ow, ValueLayout.JAVA_FLOAT_UNALIGNED, (long) t * topk * 4, topk);
        }
        return new Combined(Tensor.of(o.asSlice(0, h.tokens * rowBytes), DType.BF16, h.tokens, hidden),
                weights == null ? null : Tensor.of(ow.asSlice(0, (long) h.tokens * topk * 4), DType.FP32, h.tokens, topk));
    }

    private NormalHandle own(MoeHandle handle) {
        if (handle instanceof NormalHandle h && h.owner == this) return h;
        throw new IllegalArgumentException("handle was not made by this normal MoE buffer: " + handle);
    }

    /** Publishes the token count and input kind in this operation's header words. */
    private void publish(int t, boolean fp8, boolean weights) {
        local.set(ValueLayout.JAVA_LONG, hdr() + HDR_TOKENS, t);
        local.set(ValueLayout.JAVA_LONG, hdr() + HDR_FLAGS, (weights ? FLAG_WEIGHTS : 0) | (fp8 ? FLAG_FP8 : 0));
    }

    /** Every rank must have passed the same kind of input (dtype, weights or not). */
    private void agree(long[] flags, String op) {
        for (int s = 1; s < ranks; s++)
            if (flags[s] != flags[0])
                throw new IllegalArgumentException(op + ": ranks disagree on the input: rank 0 passed " + describe(flags[0])
                        + ", rank " + s + " " + describe(flags[s]) + "; every rank must pass the same dtype and weights or none");
    }

    private static String describe(long flags) {
        return ((flags & FLAG_FP8) != 0 ? "FP8 x" : "BF16 x") + ((flags & FLAG_WEIGHTS) != 0 ? " with weights" : " without weights");
    }

    /** {@code y} must be the latest recvX itself (no copy) or memory outside the receive area (copied in). */
    private void stageInPlace(String what, Tensor y, MemorySegment area, NormalHandle h) {
        if (startsAt(y, area) && latest == h) return;
        if (overlaps(y, local.asSlice(recvIdx, buffer.byteSize() - recvIdx)))
            throw new IllegalStateException(what + " is a view of this buffer's receive area that a later dispatch or combine "
                    + "overwrote; copy dispatch results you need beyond the next operation");
        area.copyFrom(y.segment().asSlice(0, area.byteSize()));
    }

    /**
     * The count exchange's result: who gets which token, in (source rank, token) order on every rank. The
     * same pass writes {@code recvTopkIdx} (and, with {@code srcW}, the weights) of each row this rank
     * receives into {@link #recvIdxRows} / {@link #recvWRows}: a second pass over the received rows cost
     * 1.5-2 ms per call on the 2-core VM.
     */
    private NormalHandle route(int t, long[][] ids, float[][] srcW, int align) {
        // One pass over every rank's ids (R*T*K of them): a table lookup per id instead of a 64-bit division,
        // and a per-token stamp instead of clearing a per-rank flag array for every token.
        int lo = me * numLocal;
        int[][] count = new int[ranks][ranks];
        int[] mine = new int[ranks * maxTokens];
        int[] mineTok = new int[ranks * maxTokens];
        int n = 0;
        int[] perExpert = new int[numLocal];
        int[] rowAt = new int[t * ranks];
        Arrays.fill(rowAt, -1);
        int[] seen = new int[ranks];
        int stamp = 0;
        long[] idxOut = recvIdxRows;
        float[] wOut = recvWRows;
        for (int s = 0; s < ranks; s++) {
            long[] idx = ids[s];
            float[] w = srcW == null ? null : srcW[s];
            int[] toRank = count[s];
            int ts = idx.length / topk;
            for (int i = 0; i < ts; i++) {
                stamp++;
                boolean toMe = false;
                for (int k = 0, at = i * topk; k < topk; k++, at++) {
                    long e = idx[at];
                    if (e < 0) continue;
                    int r = rankOf[(int) e];
                    if (r == me) perExpert[(int) e - lo]++;
                    if (seen[r] == stamp) continue;
                    seen[r] = stamp;
                    if (s == me) rowAt[i * ranks + r] = toRank[r]; // index among my tokens to r; offset below
                    toRank[r]++;
                    toMe |= r == me;
                }
                if (!toMe) continue;
                for (int k = 0, at = i * topk, o = n * topk; k < topk; k++, at++, o++) { // this row's recvTopkIdx
                    long e = idx[at];
                    boolean local = e >= lo && e < lo + numLocal;
                    idxOut[o] = local ? e - lo : -1;
                    if (w != null) wOut[o] = local ? w[at] : 0f;
                }
                mine[n] = s;
                mineTok[n++] = i;
            }
        }
        for (int r = 0; r < ranks; r++) {
            int prefix = 0;
            for (int s = 0; s < me; s++) prefix += count[s][r];
            for (int i = 0; i < t; i++) if (rowAt[i * ranks + r] >= 0) rowAt[i * ranks + r] += prefix;
        }
        for (int e = 0; e < numLocal; e++) perExpert[e] = (perExpert[e] + align - 1) / align * align;
        return new NormalHandle(this, t, Arrays.copyOf(mine, n), Arrays.copyOf(mineTok, n), rowAt, perExpert);
    }

    /**
     * Writes each of my tokens into the receive area of every rank that gets it. Mapped peers: token by
     * token, the row read once (it stays in cache) and stored to each of its ranks: a token goes to about
     * three of four ranks, and reading {@code x} once per rank instead made the push 25 % slower (one
     * core copied 5.2 GB/s one-to-four against 4.1 one-to-one on the 2-core VM). Peers reached by RMA:
     * rank by rank, coalescing runs of consecutive rows into one put.
     */
    private void pushRows(NormalHandle h, Tensor x, Tensor scales, boolean fp8) {
        long rowBytes = fp8 ? hidden : 2L * hidden, scaleBytes = hidden / 32;
        long dstScales = recvX + (long) ranks * maxTokens * hidden;
        MemorySegment xs = x.segment(), ss = fp8 ? scales.segment() : null;
        MemorySegment[] mapped = new MemorySegment[ranks];
        int[] order = new int[ranks]; // start with the next rank so ranks do not all write to one peer at once
        boolean anyMapped = false, anyRma = false;
        for (int step = 1; step <= ranks; step++) {
            int r = order[step - 1] = (me + step) % ranks;
            mapped[r] = peers.direct(r);
            anyMapped |= mapped[r] != null;
            anyRma |= mapped[r] == null;
        }
        if (anyMapped) {
            for (int t = 0; t < h.tokens; t++) {
                for (int r : order) {
                    int at = h.rowAt[t * ranks + r];
                    if (at < 0 || mapped[r] == null) continue;
                    MemorySegment.copy(xs, t * rowBytes, mapped[r], recvX + at * rowBytes, rowBytes);
                    if (fp8) MemorySegment.copy(ss, t * scaleBytes, mapped[r], dstScales + at * scaleBytes, scaleBytes);
                }
            }
        }
        if (!anyRma) return;
        for (int r : order) {
            if (mapped[r] != null) continue;
            for (int t = 0; t < h.tokens; ) {
                int at = h.rowAt[t * ranks + r];
                if (at < 0) {
                    t++;
                    continue;
                }
                int len = 1;
                while (t + len < h.tokens && h.rowAt[(t + len) * ranks + r] == at + len) len++;
                put(r, recvX + at * rowBytes, xs, t * rowBytes, len * rowBytes);
                if (fp8) put(r, dstScales + at * scaleBytes, ss, t * scaleBytes, len * scaleBytes);
                t += len;
            }
        }
    }

    private void put(int r, long offset, MemorySegment src, long srcOffset, long bytes) {
        comm.rma().putNbi(buffer, offset, dev.unicomm.api.Memory.of(src), srcOffset, bytes, r);
    }

    private Dispatched result(NormalHandle h, boolean fp8, Tensor idx, Tensor w) {
        int n = h.recv;
        long rowBytes = fp8 ? hidden : 2L * hidden;
        Tensor x = Tensor.of(local.asSlice(recvX, n * rowBytes), fp8 ? DType.FP8_E4M3 : DType.BF16, n, hidden);
        Tensor s = fp8 ? Tensor.of(local.asSlice(recvX + (long) ranks * maxTokens * hidden, (long) n * hidden / 32),
                DType.FP32, n, hidden / 128) : null;
        return new Dispatched(x, s, idx, w, h.perExpert.clone(), h);
    }
}
