package dev.unicomm.collectives.moe;

import dev.unicomm.api.Combined;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.Dispatched;
import dev.unicomm.api.Memory;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.MoeHandle;
import dev.unicomm.api.MoeLayout;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Normal mode in two levels, DeepEP internode's design over any backend. Results are those of
 * {@link NormalMoe} (the same rows at the same places, bit for bit; combine sums within the spec's
 * one bf16 ulp, its fp32 order grouped by host).
 *
 * <p>Dispatch: after the same count exchange, a rank sends each token <em>once</em> to each other host
 * that hosts one of its experts, to its <em>proxy</em> there ({@link HostRoutes}: the rank with its local
 * rank), into the slot the proxy keeps for it: the row, the token's global top-k ids and weights, and the
 * slot's row count. Tokens for its own host it writes directly, as the flat algorithm does. A barrier;
 * each proxy forwards every row of its slots to the ranks of its host that host one of its experts, at
 * the row the ordering gives it (source rank, then token: the proxy knows the counts), with the ids in
 * that rank's numbering; direct stores where the backend maps the peer, else RMA. A barrier.
 *
 * <p>Combine: each proxy sums, per slot row, the rows of its host's ranks that got it (fp32, rank order)
 * when there are several, into the slot; a barrier; each source rank adds, host by host, its own host's
 * rows, and per other host either the one row that host's rank holds (bf16, as it is) or the proxy's fp32
 * partial sum, then rounds once. So per (token, host) one row crosses: never more bytes than flat.
 *
 * <p>Staging area (a second symmetric buffer; S = {@link HostRoutes#slots}, T = maxTokensPerRank):
 * {@code counts align64(8S) | rows S*T*P | ids S*T*K*8 | weights S*T*K*4} ({@link #stagingBytes}). Dispatch
 * rows take 2H (FP8: H codes, then the scales after S*T*H), combine partials P = 4H (fp32).
 */
final class HierarchicalMoe extends NormalMoe {
    @Override
    String algorithm() {
        return "hierarchical";
    }

    private final HostRoutes routes;
    private final SymmetricBuffer staging;
    private final Peers stagePeers;
    private final MemorySegment stage;
    private final long sCount, sRows, sIdx, sW;
    private final long partialBytes; // a slot row: 4H (fp32 partial sums) where some host has several ranks, else 2H
    private final boolean[] onMyHost;
    private final int[] localRanks;

    HierarchicalMoe(Communicator comm, MoeConfig config) {
        super(comm, config);
        routes = new HostRoutes(comm.topology());
        long s = routes.slots, t = maxTokens, k = topk;
        partialBytes = routes.largestHost() > 1 ? 4L * hidden : 2L * hidden;
        sCount = 0;
        sRows = (8 * s + 63) / 64 * 64;
        sIdx = sRows + s * t * partialBytes;
        sW = sIdx + s * t * k * 8;
        if (sW + s * t * k * 4 != stagingBytes(routes, config))
            throw new IllegalStateException("staging layout does not match stagingBytes");
        staging = comm.heap().allocate(stagingBytes(routes, config));
        stagePeers = new Peers(comm, staging);
        stage = staging.segment();
        localRanks = routes.ranksOn[routes.myHost];
        onMyHost = new boolean[ranks];
        for (int r : localRanks) onMyHost[r] = true;
    }

    /**
     * Symmetric bytes of the staging area per rank: {@code align64(8S) + S*T*(P + 12K)}, S = slots per
     * rank ({@link HostRoutes#slots}, one per other host when hosts are equal), P = 4H where some host
     * has several ranks (combine's fp32 partial sums), else 2H. At least 64.
     */
    static long stagingBytes(HostRoutes routes, MoeConfig config) {
        long s = routes.slots, t = config.maxTokensPerRank(), h = config.hidden(), k = config.numTopk();
        long p = routes.largestHost() > 1 ? 4 * h : 2 * h;
        return Math.max(
                64, Math.addExact((8 * s + 63) / 64 * 64, Math.multiplyExact(Math.multiplyExact(s, t), p + 12 * k)));
    }

    @Override
    long algorithmFlag() {
        return FLAG_HIERARCHICAL;
    }

    @Override
    long interHostBytes() {
        return super.interHostBytes() + stagePeers.remoteBytes;
    }

    @Override
    public long footprintBytes() {
        return super.footprintBytes() + staging.byteSize();
    }

    /** A normal handle plus the two-level routes: per token its row in each host's slot, per slot its forwarding. */
    static final class TwoLevelHandle extends NormalHandle {
        final int[] hostRow; // [T, hosts]: my token's row in my slot on host g, or -1 (always -1 for my host)
        final int[] slotCount; // my slots: rows received
        final int[][] forward; // my slots: [row, local rank] -> row on that rank, or -1

        TwoLevelHandle(
                NormalMoe owner,
                int tokens,
                int recv,
                int[] rowAt,
                int[] perExpert,
                int[] hostRow,
                int[] slotCount,
                int[][] forward) {
            super(owner, tokens, recv, rowAt, perExpert);
            this.hostRow = hostRow;
            this.slotCount = slotCount;
            this.forward = forward;
        }

        @Override
        public String toString() {
            return "normal handle (two-level): " + tokens + " tokens sent, " + recv + " received";
        }
    }

    @Override
    public Dispatched dispatch(Tensor x, Tensor scales, Tensor topkIdx, Tensor weights, MoeLayout layout, int align) {
        Exchange e = exchangeCounts(x, scales, topkIdx, weights);
        int t = e.tokens(), n = e.recv();
        boolean fp8 = e.fp8();
        long[] idx = e.idx();
        float[] w = e.w();
        int[] rowAt = e.rowAt(), toRank = e.toRank();
        long[][] c = e.counts();
        int[] hostRow = new int[t * routes.hosts];
        int[] toHost = hostRows(t, rowAt, hostRow); // from the per-destination order, before placeRows
        int[] firstRow = firstRows(c, me);
        e.placeRows(firstRow);
        try (Arena tmp = Arena.ofConfined()) {
            sendAcross(tmp, t, hostRow, toHost, x, scales, fp8, idx, w, true);
            pushRows(t, rowAt, x, scales, fp8, onMyHost);
            pushRouting(t, rowAt, toRank, firstRow, idx, w, onMyHost);
            comm.rma().quiet();
        }
        comm.barrier(); // every slot is filled
        int[] slotCount = new int[routes.slotSource.length];
        int[][] forward = new int[slotCount.length][];
        for (int sl = 0; sl < slotCount.length; sl++) {
            slotCount[sl] = (int) stage.get(ValueLayout.JAVA_LONG, sCount + 8L * sl);
            forward[sl] = forwardRouting(sl, slotCount[sl], firstRows(c, routes.slotSource[sl]), weights != null);
        }
        forwardRows(slotCount, forward, fp8);
        comm.rma().quiet();
        comm.barrier(); // every row has reached its rank; every peer is done reading our counts and slots
        TwoLevelHandle h = new TwoLevelHandle(this, t, n, rowAt, perExpert(n, align), hostRow, slotCount, forward);
        return dispatched(h, fp8, weights != null);
    }

    @Override
    public Dispatched dispatch(Tensor x, Tensor scales, MoeHandle handle) {
        ensureOpen();
        count("cachedDispatch");
        TwoLevelHandle h = own(handle);
        boolean fp8 = startCachedDispatch(x, scales);
        try (Arena tmp = Arena.ofConfined()) {
            sendAcross(tmp, h.tokens, h.hostRow, null, x, scales, fp8, null, null, false);
            pushRows(h.tokens, h.rowAt, x, scales, fp8, onMyHost);
            comm.rma().quiet();
        }
        comm.barrier();
        forwardRows(h.slotCount, h.forward, fp8);
        comm.rma().quiet();
        comm.barrier();
        return cachedDispatched(h, fp8);
    }

    @Override
    public Combined combine(Tensor y, MoeHandle handle, Tensor weights) {
        ensureOpen();
        count("combine");
        TwoLevelHandle h = own(handle);
        long rowBytes = 2L * hidden;
        startCombine(y, weights, h);
        float[] acc = new float[hidden], accW = new float[topk];
        reduceInHost(h, weights != null, acc, accW);
        comm.barrier(); // every partial sum is in its slot

        MemorySegment o = out.segment(), ow = outW.segment();
        MemorySegment row;
        float[] part = new float[hidden];
        try (Arena tmp = Arena.ofConfined()) {
            row = tmp.allocate(4L * hidden, 64);
            for (int t = 0; t < h.tokens; t++) {
                boolean any = false;
                for (int g = 0; g < routes.hosts; g++) {
                    int[] on = routes.ranksOn[g];
                    if (g == routes.myHost) {
                        for (int r : on) {
                            int at = h.rowAt[t * ranks + r];
                            if (at < 0) continue;
                            addBf16(acc, any, r, recvX + at * rowBytes, row);
                            if (weights != null)
                                addFloats(accW, any, peers.readFloats(r, recvW + (long) at * topk * 4, topk));
                            any = true;
                        }
                        continue;
                    }
                    int only = -1, count = 0;
                    for (int r : on) {
                        if (h.rowAt[t * ranks + r] >= 0) {
                            only = r;
                            count++;
                        }
                    }
                    if (count == 0) continue;
                    if (count == 1) { // one rank of that host has it: its bf16 row as it is
                        int at = h.rowAt[t * ranks + only];
                        addBf16(acc, any, only, recvX + at * rowBytes, row);
                        if (weights != null)
                            addFloats(accW, any, peers.readFloats(only, recvW + (long) at * topk * 4, topk));
                    } else { // several: the proxy's fp32 partial sum
                        int p = routes.proxy(me, g);
                        long slotRow = (long) routes.mySlot[g] * maxTokens + h.hostRow[t * routes.hosts + g];
                        stagePeers.read(p, sRows + slotRow * partialBytes, row, 0, 4L * hidden);
                        MemorySegment.copy(row, ValueLayout.JAVA_FLOAT_UNALIGNED, 0, part, 0, hidden);
                        addFloats(acc, any, part);
                        if (weights != null)
                            addFloats(accW, any, stagePeers.readFloats(p, sW + slotRow * topk * 4, topk));
                    }
                    any = true;
                }
                long dst = t * rowBytes;
                if (!any) {
                    o.asSlice(dst, rowBytes).fill((byte) 0); // sent nowhere: zeros
                    Arrays.fill(accW, 0f);
                } else {
                    RowMath.BEST.round(acc, o, dst, hidden);
                }
                if (weights != null)
                    MemorySegment.copy(accW, 0, ow, ValueLayout.JAVA_FLOAT_UNALIGNED, (long) t * topk * 4, topk);
            }
        }
        return combined(h, weights != null);
    }

    /** As the flat buffer's, with this buffer's handle type (every handle it makes is two-level). */
    @Override
    TwoLevelHandle own(MoeHandle handle) {
        if (handle instanceof TwoLevelHandle h && h.owner == this) return h;
        throw new IllegalArgumentException("handle was not made by this normal MoE buffer: " + handle);
    }

    /** DeepEP's is_token_in_rank per host: {@code hostRow[i * hosts + g]} = my token i's row in my slot on host g, or -1; returns rows per host. */
    private int[] hostRows(int t, int[] rowAt, int[] hostRow) {
        Arrays.fill(hostRow, -1);
        int[] toHost = new int[routes.hosts];
        for (int i = 0; i < t; i++) {
            for (int r = 0; r < ranks; r++) {
                int g = routes.hostOf[r];
                if (rowAt[i * ranks + r] < 0 || g == routes.myHost || hostRow[i * routes.hosts + g] >= 0) continue;
                hostRow[i * routes.hosts + g] = toHost[g]++;
            }
        }
        return toHost;
    }

    /**
     * Puts my tokens for each other host into my slot on its proxy: rows (runs of consecutive tokens in one
     * put), and with {@code routing} the row count and the tokens' global ids and weights. {@code tmp} holds
     * the non-blocking puts' sources until the caller's quiet.
     */
    private void sendAcross(
            Arena tmp,
            int t,
            int[] hostRow,
            int[] toHost,
            Tensor x,
            Tensor scales,
            boolean fp8,
            long[] idx,
            float[] w,
            boolean routing) {
        long rowBytes = fp8 ? hidden : 2L * hidden, scaleBytes = hidden / 32;
        long slotsRows = (long) routes.slots * maxTokens;
        MemorySegment xs = x.segment(), ss = fp8 ? scales.segment() : null;
        int hosts = routes.hosts;
        for (int step = 1; step < hosts; step++) {
            int g = (routes.myHost + step) % hosts, p = routes.proxy(me, g);
            long base = (long) routes.mySlot[g] * maxTokens;
            for (int i = 0; i < t; ) {
                int j = hostRow[i * hosts + g];
                if (j < 0) {
                    i++;
                    continue;
                }
                int len = 1;
                while (i + len < t && hostRow[(i + len) * hosts + g] == j + len) len++;
                putStage(p, sRows + (base + j) * rowBytes, xs, i * rowBytes, len * rowBytes);
                if (fp8)
                    putStage(
                            p,
                            sRows + slotsRows * hidden + (base + j) * scaleBytes,
                            ss,
                            i * scaleBytes,
                            len * scaleBytes);
                i += len;
            }
            if (!routing) continue;
            int m = toHost[g];
            MemorySegment meta = tmp.allocate(8 + 12L * m * topk, 8);
            meta.set(ValueLayout.JAVA_LONG, 0, m);
            for (int i = 0; i < t; i++) {
                int j = hostRow[i * hosts + g];
                if (j < 0) continue;
                MemorySegment.copy(idx, i * topk, meta, ValueLayout.JAVA_LONG_UNALIGNED, 8 + 8L * j * topk, topk);
                if (w != null)
                    MemorySegment.copy(
                            w,
                            i * topk,
                            meta,
                            ValueLayout.JAVA_FLOAT_UNALIGNED,
                            8 + 8L * m * topk + 4L * j * topk,
                            topk);
            }
            putStage(p, sCount + 8L * routes.mySlot[g], meta, 0, 8);
            putStage(p, sIdx + base * topk * 8, meta, 8, 8L * m * topk);
            if (w != null) putStage(p, sW + base * topk * 4, meta, 8 + 8L * m * topk, 4L * m * topk);
        }
    }

    private void putStage(int p, long offset, MemorySegment src, long srcOffset, long bytes) {
        if (bytes == 0) return;
        stagePeers.wrote(p, bytes);
        comm.rma().putNbi(staging, offset, Memory.of(src), srcOffset, bytes, p);
    }

    /**
     * For slot {@code sl} ({@code m} rows from one source whose rows start at {@code first[r]} on rank r):
     * which of my host's ranks gets each row, and where; writes each such rank's ids (its local numbering,
     * -1 elsewhere) and weights (0 elsewhere) as one contiguous block, as {@link #pushRouting} does.
     */
    private int[] forwardRouting(int sl, int m, int[] first, boolean withWeights) {
        int ls = localRanks.length;
        int[] fwd = new int[m * ls];
        Arrays.fill(fwd, -1);
        long base = (long) sl * maxTokens;
        long[] ids = new long[m * topk];
        MemorySegment.copy(stage, ValueLayout.JAVA_LONG_UNALIGNED, sIdx + base * topk * 8, ids, 0, ids.length);
        float[] w = null;
        if (withWeights) {
            w = new float[m * topk];
            MemorySegment.copy(stage, ValueLayout.JAVA_FLOAT_UNALIGNED, sW + base * topk * 4, w, 0, w.length);
        }
        for (int l = 0; l < ls; l++) {
            int r = localRanks[l], lo = r * numLocal, j = 0, row = first[r];
            for (int i = 0; i < m; i++) {
                boolean mine = false;
                for (int k = 0, at = i * topk; k < topk; k++, at++) {
                    long d = ids[at] - lo;
                    mine |= ids[at] >= 0 && d >= 0 && d < numLocal;
                }
                if (!mine) continue;
                fwd[i * ls + l] = row++;
                for (int k = 0, at = i * topk; k < topk; k++, at++, j++) {
                    long d = ids[at] - lo;
                    boolean here = ids[at] >= 0 && d >= 0 && d < numLocal;
                    metaIds[j] = here ? d : -1;
                    if (w != null) metaW[j] = here ? w[at] : 0f;
                }
            }
            if (j == 0) continue;
            writeRouting(r, first[r], j, w != null);
        }
        return fwd;
    }

    /** Copies every slot row to the ranks of my host that {@code forward} names (direct stores, else runs of rows by RMA). */
    private void forwardRows(int[] slotCount, int[][] forward, boolean fp8) {
        long rowBytes = fp8 ? hidden : 2L * hidden, scaleBytes = hidden / 32;
        long slotsRows = (long) routes.slots * maxTokens, dstScales = recvX + (long) ranks * maxTokens * hidden;
        int ls = localRanks.length;
        for (int sl = 0; sl < slotCount.length; sl++) {
            long base = (long) sl * maxTokens;
            int m = slotCount[sl];
            int[] fwd = forward[sl];
            for (int l = 0; l < ls; l++) {
                int r = localRanks[l];
                MemorySegment dst = peers.direct(r);
                for (int i = 0; i < m; ) {
                    int at = fwd[i * ls + l];
                    if (at < 0) {
                        i++;
                        continue;
                    }
                    int len = 1;
                    if (dst == null) while (i + len < m && fwd[(i + len) * ls + l] == at + len) len++;
                    long src = sRows + (base + i) * rowBytes,
                            srcScales = sRows + slotsRows * hidden + (base + i) * scaleBytes;
                    if (dst != null) {
                        MemorySegment.copy(stage, src, dst, recvX + at * rowBytes, rowBytes);
                        if (fp8) MemorySegment.copy(stage, srcScales, dst, dstScales + at * scaleBytes, scaleBytes);
                    } else {
                        put(r, recvX + at * rowBytes, stage, src, len * rowBytes, true);
                        if (fp8) put(r, dstScales + at * scaleBytes, stage, srcScales, len * scaleBytes, true);
                    }
                    i += len;
                }
            }
        }
    }

    /** Proxy side of combine: per slot row that several of my host's ranks got, their rows summed in fp32 (rank order) into the slot. */
    private void reduceInHost(TwoLevelHandle h, boolean withWeights, float[] acc, float[] accW) {
        int ls = localRanks.length;
        long rowBytes = 2L * hidden;
        for (int sl = 0; sl < h.slotCount.length; sl++) {
            long base = (long) sl * maxTokens;
            int[] fwd = h.forward[sl];
            for (int i = 0; i < h.slotCount[sl]; i++) {
                int count = 0;
                rows.start();
                for (int l = 0; l < ls; l++) {
                    int at = fwd[i * ls + l];
                    if (at < 0) continue;
                    rows.read(count, localRanks[l], recvX + at * rowBytes, rowBytes);
                    if (withWeights) {
                        float[] w = peers.readFloats(localRanks[l], recvW + (long) at * topk * 4, topk);
                        addFloats(accW, count > 0, w);
                    }
                    count++;
                }
                rows.await();
                if (count < 2) continue; // the source reads a lone row where it is
                RowMath.BEST.set(acc, rows.segs[0], rows.offsets[0], hidden);
                for (int j = 1; j < count; j++) RowMath.BEST.add(acc, rows.segs[j], rows.offsets[j], hidden);
                MemorySegment.copy(
                        acc, 0, stage, ValueLayout.JAVA_FLOAT_UNALIGNED, sRows + (base + i) * partialBytes, hidden);
                if (withWeights)
                    MemorySegment.copy(
                            accW, 0, stage, ValueLayout.JAVA_FLOAT_UNALIGNED, sW + (base + i) * topk * 4, topk);
            }
        }
    }

    /** {@code acc (=|+=) bf16 row at offset of rank r's receive area} (read in place where mapped, else fetched into {@code tmp}). */
    private void addBf16(float[] acc, boolean add, int r, long offset, MemorySegment tmp) {
        MemorySegment seg = peers.direct(r);
        if (seg == null) {
            peers.read(r, offset, tmp, 0, 2L * hidden);
            seg = tmp;
            offset = 0;
        }
        if (add) RowMath.BEST.add(acc, seg, offset, hidden);
        else RowMath.BEST.set(acc, seg, offset, hidden);
    }

    private static void addFloats(float[] acc, boolean add, float[] v) {
        if (add) for (int i = 0; i < v.length; i++) acc[i] += v[i];
        else System.arraycopy(v, 0, acc, 0, v.length);
    }

    private boolean stagingClosed;

    @Override
    public synchronized void close() {
        try {
            super.close();
        } finally {
            if (!stagingClosed) {
                stagingClosed = true;
                staging.close();
            }
        }
    }
}
