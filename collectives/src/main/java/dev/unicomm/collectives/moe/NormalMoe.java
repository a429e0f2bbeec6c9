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
 * Normal-mode dispatch/combine, pull-based. Dispatch: every rank stages its tokens, ids and
 * weights in its own symmetric send area, a barrier publishes them (the count exchange: every
 * rank reads every rank's ids, so all agree on the routing), then each rank copies the rows
 * routed to it straight from the sources' send areas into its receive area, each token once per
 * destination rank. Combine: each rank stages {@code y} in its receive area (nothing to copy when
 * {@code y} is the latest {@code recvX}), a barrier, then each source rank reads its tokens' rows
 * from the ranks that got them and sums them in fp32. One barrier per operation also keeps a
 * rank from overwriting an area a peer still reads.
 *
 * <p>Symmetric layout ({@code T = maxTokensPerRank}, rows of {@code 2H} bytes; FP8 rows keep their
 * {@code H} codes first and the scales after all codes of the area):
 * {@code header(64) | sendIdx T*K*8 | recvIdx R*T*K*8 | sendW T*K*4 | recvW R*T*K*4 | sendX T*2H | recvX R*T*2H}.
 */
final class NormalMoe extends PortableMoe {
    // Header words, double-buffered by operation parity: one barrier per operation means a rank is
    // at most one operation ahead of any other, so it never overwrites words a peer still reads.
    private static final long HDR_TOKENS = 0, HDR_FLAGS = 8;
    private static final long FLAG_WEIGHTS = 1, FLAG_FP8 = 2;

    private final long sendIdx, recvIdx, sendW, recvW, sendX, recvX;
    private NormalHandle latest;
    private long ops;
    // Operations stage before their barrier. Peers may still be reading our send area after a
    // dispatch and our receive area after a combine, so the same kind of operation right after
    // needs one more barrier before staging (every rank sees the same sequence, so all agree).
    private boolean lastWasCombine, lastWasDispatch;

    private long hdr() { return 16 * (ops & 1); }

    NormalMoe(Communicator comm, MoeConfig config) {
        super(comm, config);
        long t = maxTokens, k = topk, h = hidden, r = ranks;
        sendIdx = MoeConfig.HEADER_BYTES;
        recvIdx = sendIdx + t * k * 8;
        sendW = recvIdx + r * t * k * 8;
        recvW = sendW + t * k * 4;
        sendX = recvW + r * t * k * 4;
        recvX = sendX + t * 2 * h;
        if (recvX + r * t * 2 * h != buffer.byteSize()) throw new IllegalStateException("normal MoE layout does not match sizeHint");
    }

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
        stage(x, scales, t, fp8, weights != null);
        local.asSlice(sendIdx, (long) t * topk * 8).copyFrom(topkIdx.segment());
        if (weights != null) local.asSlice(sendW, (long) t * topk * 4).copyFrom(weights.segment());
        comm.barrier();

        long[] flags = new long[ranks];
        long[][] ids = new long[ranks][];
        for (int s = 0; s < ranks; s++) {
            long[] hdr = peers.readLongs(s, hdr(), 2);
            flags[s] = hdr[1];
            ids[s] = peers.readLongs(s, sendIdx, (int) hdr[0] * topk);
        }
        agree(flags, "dispatch");
        NormalHandle h = route(t, ids, align);
        pullRows(h, fp8);
        ops++;
        lastWasCombine = false;
        lastWasDispatch = true;

        int n = h.recv;
        MemorySegment idxOut = local.asSlice(recvIdx, (long) n * topk * 8);
        MemorySegment wOut = weights == null ? null : local.asSlice(recvW, (long) n * topk * 4);
        float[][] srcW = new float[ranks][];
        for (int i = 0; i < n; i++) {
            int s = h.srcRank[i], tok = h.srcToken[i];
            if (weights != null && srcW[s] == null) srcW[s] = peers.readFloats(s, sendW, ids[s].length);
            for (int k = 0; k < topk; k++) {
                long e = ids[s][tok * topk + k];
                boolean mine = e >= 0 && e / numLocal == me;
                idxOut.setAtIndex(ValueLayout.JAVA_LONG, (long) i * topk + k, mine ? e - (long) me * numLocal : -1);
                if (wOut != null) wOut.setAtIndex(ValueLayout.JAVA_FLOAT, (long) i * topk + k, mine ? srcW[s][tok * topk + k] : 0f);
            }
        }
        latest = h;
        return result(h, fp8, Tensor.of(idxOut, DType.INT64, n, topk), wOut == null ? null : Tensor.of(wOut, DType.FP32, n, topk));
    }

    @Override public Dispatched dispatch(Tensor x, Tensor scales, MoeHandle handle) {
        ensureOpen();
        NormalHandle h = own(handle);
        boolean fp8 = host("x", x).dtype() == DType.FP8_E4M3;
        host("scales", scales);
        stage(x, scales, h.tokens, fp8, false);
        comm.barrier();
        long[] flags = new long[ranks];
        for (int s = 0; s < ranks; s++) flags[s] = peers.readLongs(s, hdr() + HDR_FLAGS, 1)[0];
        agree(flags, "cached dispatch");
        pullRows(h, fp8);
        ops++;
        lastWasCombine = false;
        lastWasDispatch = true;
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
        lastWasDispatch = false;
        stageInPlace("y", host("y", y), local.asSlice(recvX, n * rowBytes), h);
        if (weights != null) stageInPlace("topkWeights", host("topkWeights", weights), local.asSlice(recvW, (long) n * topk * 4), h);
        local.set(ValueLayout.JAVA_LONG, hdr() + HDR_FLAGS, weights != null ? FLAG_WEIGHTS : 0);
        comm.barrier();
        long[] flags = new long[ranks];
        for (int s = 0; s < ranks; s++) flags[s] = peers.readLongs(s, hdr() + HDR_FLAGS, 1)[0];
        ops++;
        agree(flags, "combine");

        Arena arena = Arena.ofAuto();
        Tensor out = Tensor.allocate(arena, DType.BF16, h.tokens, hidden);
        Tensor outW = weights == null ? null : Tensor.allocate(arena, DType.FP32, h.tokens, topk);
        MemorySegment o = out.segment();
        float[] acc = new float[hidden], accW = new float[topk];
        short[] row = new short[hidden];
        MemorySegment tmp = null;
        for (int t = 0; t < h.tokens; t++) {
            int first = -1, count = 0;
            for (int r = 0; r < ranks; r++) {
                int at = h.rowAt[t * ranks + r];
                if (at < 0) continue;
                long off = recvX + at * rowBytes;
                if (count == 0) first = r;
                if (count == 0 && !multi(h, t, r)) {
                    peers.read(r, off, o, t * rowBytes, rowBytes); // one source: the sum is the row itself
                } else {
                    MemorySegment src = peers.direct(r);
                    if (src == null) {
                        if (tmp == null) tmp = Arena.ofAuto().allocate(rowBytes);
                        peers.read(r, off, tmp, 0, rowBytes);
                        src = tmp;
                        off = 0;
                    }
                    Bf16Rows.load(src, off, row, hidden);
                    if (count == 0) Bf16Rows.set(acc, row, hidden); else Bf16Rows.add(acc, row, hidden);
                }
                if (outW != null) {
                    float[] w = peers.readFloats(r, recvW + (long) at * topk * 4, topk);
                    for (int k = 0; k < topk; k++) accW[k] = count == 0 ? w[k] : accW[k] + w[k];
                }
                count++;
            }
            if (count > 1) {
                Bf16Rows.round(acc, row, hidden);
                Bf16Rows.store(row, o, t * rowBytes, hidden);
            }
            if (outW != null && first >= 0) MemorySegment.copy(accW, 0, outW.segment(), ValueLayout.JAVA_FLOAT, (long) t * topk * 4, topk);
        }
        return new Combined(out, outW);
    }

    private boolean multi(NormalHandle h, int t, int from) {
        for (int r = from + 1; r < ranks; r++) if (h.rowAt[t * ranks + r] >= 0) return true;
        return false;
    }

    private NormalHandle own(MoeHandle handle) {
        if (handle instanceof NormalHandle h && h.owner == this) return h;
        throw new IllegalArgumentException("handle was not made by this normal MoE buffer: " + handle);
    }

    /** Copies x (and FP8 scales) into the send area and publishes the token count and flags. */
    private void stage(Tensor x, Tensor scales, int t, boolean fp8, boolean weights) {
        if (lastWasDispatch) comm.barrier(); // the previous dispatch's readers of our send area are done
        long rowBytes = fp8 ? hidden : 2L * hidden;
        local.asSlice(sendX, t * rowBytes).copyFrom(x.segment().asSlice(0, t * rowBytes));
        if (fp8) local.asSlice(sendX + (long) maxTokens * hidden, (long) t * hidden / 32).copyFrom(scales.segment());
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

    /** The count exchange's result: who gets which token, in (source rank, token) order on every rank. */
    private NormalHandle route(int t, long[][] ids, int align) {
        int[][] count = new int[ranks][ranks];
        int[] mine = new int[ranks * maxTokens];
        int[] mineTok = new int[ranks * maxTokens];
        int n = 0;
        int[] perExpert = new int[numLocal];
        int[] rowAt = new int[t * ranks];
        Arrays.fill(rowAt, -1);
        boolean[] hit = new boolean[ranks];
        for (int s = 0; s < ranks; s++) {
            long[] idx = ids[s];
            int ts = idx.length / topk;
            for (int i = 0; i < ts; i++) {
                Arrays.fill(hit, false);
                for (int k = 0; k < topk; k++) {
                    long e = idx[i * topk + k];
                    if (e < 0) continue;
                    hit[(int) (e / numLocal)] = true;
                    if (e / numLocal == me) perExpert[(int) (e - (long) me * numLocal)]++;
                }
                for (int r = 0; r < ranks; r++) {
                    if (!hit[r]) continue;
                    if (s == me) rowAt[i * ranks + r] = count[s][r]; // index among my tokens to r, offset below
                    count[s][r]++;
                }
                if (hit[me]) {
                    mine[n] = s;
                    mineTok[n++] = i;
                }
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

    /** Copies each routed row from its source's send area, coalescing runs of consecutive tokens. */
    private void pullRows(NormalHandle h, boolean fp8) {
        long rowBytes = fp8 ? hidden : 2L * hidden, scaleBytes = hidden / 32;
        long srcScales = sendX + (long) maxTokens * hidden, dstScales = recvX + (long) ranks * maxTokens * hidden;
        int n = h.recv;
        for (int i = 0; i < n; ) {
            int s = h.srcRank[i], t0 = h.srcToken[i], len = 1;
            while (i + len < n && h.srcRank[i + len] == s && h.srcToken[i + len] == t0 + len) len++;
            peers.read(s, sendX + t0 * rowBytes, local, recvX + i * rowBytes, len * rowBytes);
            if (fp8) peers.read(s, srcScales + t0 * scaleBytes, local, dstScales + i * scaleBytes, len * scaleBytes);
            i += len;
        }
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
