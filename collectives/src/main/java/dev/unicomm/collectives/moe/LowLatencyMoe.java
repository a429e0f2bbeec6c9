package dev.unicomm.collectives.moe;

import dev.unicomm.api.Cmp;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.LowLatencyCombined;
import dev.unicomm.api.LowLatencyDispatched;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.MoeHandle;
import dev.unicomm.api.Tensor;
import dev.unicomm.collectives.fp8.Fp8Quantiser;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Low-latency dispatch/combine with per-expert fixed receive buffers, two generations (slots)
 * alive at once. No barriers: progress is carried by signal words and acknowledgement counters.
 *
 * <ul>
 *   <li>Dispatch (send half): wait until every rank has acknowledged the slot's previous
 *       dispatch, stage ids and data (BF16, or FP8 quantised once per token) in the slot's send
 *       area, then set word {@code ready[slot][me] = (gen+1) << 32 | T} on every rank.</li>
 *   <li>Hook (receive half): wait for every source's ready word, read its ids, copy each
 *       (token, local expert) row from the source's send area into
 *       {@code recv[expert][count[expert]++]} (source rank, then token order), then increment
 *       each source's acknowledgement counter for the slot.</li>
 *   <li>Combine: stage {@code y}'s valid rows in the dispatch's receive area (nothing to copy when
 *       {@code y} is that {@code recvX}), then signal; its hook reads, for each own token and
 *       expert, the row from the hosting rank, sums {@code weight * row} in fp32 (k ascending),
 *       rounds once, and acknowledges. A slot's receive area is reused only after every rank has
 *       acknowledged the combines staged in it.</li>
 * </ul>
 * A dispatch that reuses a slot first completes or invalidates this rank's older work in it, so an
 * unused hook cannot deadlock the job.
 */
final class LowLatencyMoe extends PortableMoe {
    @Override
    String algorithm() {
        return "direct";
    }

    private static final RowMath MATH = RowMath.BEST;

    private final long slotBytes, sendIdxOff, sendXOff, recvOff;
    private final int slotsPerExpert;
    private final Handle[] current = new Handle[2];
    private final CombineOp[] pendingCombine = new CombineOp[2];
    private final long[] combinesStaged = new long[2];
    private long dispatches;
    private final Tensor[] outs = new Tensor[2]; // combine outputs, one per slot
    private final RowGather rows; // combine: a batch of tokens' rows, one per top-k slot
    private final int combineBatch; // tokens per batch of combine reads
    private MemorySegment stage; // receive: one unmapped source's rows and scales, allocated on first use

    LowLatencyMoe(Communicator comm, MoeConfig config) {
        super(comm, config);
        long t = maxTokens, k = topk, h = hidden;
        slotsPerExpert = ranks * maxTokens;
        sendIdxOff = 0;
        sendXOff = t * k * 8;
        recvOff = sendXOff + t * 2 * h;
        slotBytes = recvOff + (long) numLocal * slotsPerExpert * 2 * h;
        // sizeHint also counts the push combine area of native backends (unused here).
        if (slotBase(2) > buffer.byteSize()) throw new IllegalStateException("low-latency MoE layout exceeds sizeHint");
        for (int s = 0; s < 2; s++) outs[s] = Tensor.allocate(arena, DType.BF16, maxTokens, hidden);
        combineBatch = RowGather.tokensPerBatch(maxTokens, topk * 2L * hidden);
        rows = new RowGather(peers, arena, combineBatch * topk, combineBatch * topk * 2L * hidden);
    }

    @Override
    public long footprintBytes() {
        return buffer.byteSize() + outs[0].byteSize() + outs[1].byteSize();
    }

    private Tensor output(int slot, int tokens) {
        return Tensor.of(outs[slot].segment().asSlice(0, (long) tokens * 2 * hidden), DType.BF16, tokens, hidden);
    }

    private long slotBase(int slot) {
        return MoeConfig.HEADER_BYTES + (long) MoeConfig.SIGNAL_BYTES_PER_RANK * ranks + slot * slotBytes;
    }

    private static long dispatchAck(int slot) {
        return slot * 8L;
    }

    private static long combineAck(int slot) {
        return 16 + slot * 8L;
    }

    private static long readyDispatch(int src, int slot) {
        return MoeConfig.HEADER_BYTES + src * 32L + slot * 8L;
    }

    private static long readyCombine(int src, int slot) {
        return MoeConfig.HEADER_BYTES + src * 32L + 16 + slot * 8L;
    }

    /** One low-latency dispatch's state on this rank. */
    final class Handle implements MoeHandle {
        final long gen;
        final int slot, tokens;
        final boolean fp8;
        final int[] recvCount = new int[numLocal];
        int[] position; // [T, K]: slot of my token t's k-th expert on its hosting rank, -1 for unused slots
        boolean received, invalid;
        int numRecv = -1;

        Handle(long gen, int tokens, boolean fp8) {
            this.gen = gen;
            this.slot = (int) (gen & 1);
            this.tokens = tokens;
            this.fp8 = fp8;
        }

        LowLatencyMoe owner() {
            return LowLatencyMoe.this;
        }

        @Override
        public MoeConfig.Mode mode() {
            return MoeConfig.Mode.LOW_LATENCY;
        }

        @Override
        public int numTokens() {
            return tokens;
        }

        @Override
        public int numRecvTokens() {
            return numRecv;
        }

        @Override
        public String toString() {
            return "low-latency handle #" + gen + " (" + tokens + " tokens)";
        }
    }

    /** A combine whose data is staged and whose receive half may still be pending. */
    private record CombineOp(Handle handle, long seq, float[] weights, Tensor out, boolean[] done) {}

    @Override
    public synchronized LowLatencyDispatched lowLatencyDispatch(Tensor x, Tensor topkIdx, boolean useFp8) {
        ensureOpen();
        count("lowLatencyDispatch");
        int t = (int) host("topkIdx", topkIdx).dim(0);
        host("x", x);
        long gen = dispatches;
        int slot = (int) (gen & 1);
        Handle old = current[slot];
        if (old != null && !old.received) {
            old.invalid = true; // never received: nothing to read any more, release the sources' send areas
            acknowledge(dispatchAck(slot));
        }
        if (pendingCombine[slot] != null) finishCombine(pendingCombine[slot]);
        comm.rma().signalWaitUntil(buffer, dispatchAck(slot), Cmp.GE, ranks * (gen >> 1));

        long base = slotBase(slot);
        local.asSlice(base + sendIdxOff, (long) t * topk * 8).copyFrom(topkIdx.segment());
        if (useFp8) quantise(x, t, base + sendXOff);
        else
            local.asSlice(base + sendXOff, (long) t * 2 * hidden)
                    .copyFrom(x.segment().asSlice(0, (long) t * 2 * hidden));
        comm.rma().quiet();
        long ready = (gen + 1) << 32 | t;
        for (int pe = 0; pe < ranks; pe++) comm.rma().atomicSet(buffer, readyDispatch(me, slot), ready, pe);

        Handle h = new Handle(gen, t, useFp8);
        current[slot] = h;
        dispatches++;
        long area = (long) numLocal * slotsPerExpert;
        Tensor recvX = Tensor.of(
                local.asSlice(base + recvOff, area * (useFp8 ? hidden : 2L * hidden)),
                useFp8 ? DType.FP8_E4M3 : DType.BF16,
                numLocal,
                slotsPerExpert,
                hidden);
        Tensor scales = useFp8
                ? Tensor.of(
                        local.asSlice(base + recvOff + area * hidden, area * hidden / 32),
                        DType.FP32,
                        numLocal,
                        slotsPerExpert,
                        hidden / 128)
                : null;
        return new LowLatencyDispatched(recvX, scales, h.recvCount, h, () -> receive(h));
    }

    /** Quantises the {@code t} tokens straight from {@code x} into the send area: codes at {@code dst}, scales after all slots' codes. */
    private void quantise(Tensor x, int t, long dst) {
        Fp8Quantiser.quantise(x.segment(), 0, t, hidden, local, dst, local, dst + (long) maxTokens * hidden);
    }

    /** Increments the counter at {@code offset} on every rank. */
    private void acknowledge(long offset) {
        for (int pe = 0; pe < ranks; pe++) comm.rma().atomicAdd(buffer, offset, 1, pe);
    }

    private synchronized void receive(Handle h) {
        if (h.received) return;
        if (h.invalid)
            throw new IllegalStateException("hook of " + h + " is stale: a newer dispatch reused its buffers");
        ensureOpen();
        int slot = h.slot;
        comm.rma().signalWaitUntil(buffer, combineAck(slot), Cmp.GE, ranks * combinesStaged[slot]);
        long base = slotBase(slot);
        long[][] ids = new long[ranks][];
        long rowBytes = h.fp8 ? hidden : 2L * hidden, scaleBytes = hidden / 32;
        long area = (long) numLocal * slotsPerExpert;
        long srcScales = base + sendXOff + (long) maxTokens * hidden, dstScales = base + recvOff + area * hidden;
        int[] count = h.recvCount;
        Arrays.fill(count, 0); // a hook retried after a failed wait starts over
        // Source by source, each copied as soon as it is ready: a rank that finished its own send half
        // copies from the ranks before it while later ones still quantise, instead of waiting for all.
        // Slots still fill in source-rank order (a source's slots follow those of every lower rank).
        for (int s = 0; s < ranks; s++) {
            long v = comm.rma().signalWaitUntil(buffer, readyDispatch(s, slot), Cmp.GE, (h.gen + 1) << 32);
            ids[s] = peers.readLongs(s, base + sendIdxOff, (int) (v & 0xFFFFFFFFL) * topk);
            long[] idx = ids[s];
            int tokens = idx.length / topk;
            // The source's rows (and scales), where this rank reads them: in place, or fetched into the staging area.
            MemorySegment from = peers.direct(s);
            long rowsAt = base + sendXOff, scalesAt = srcScales;
            if (from == null) {
                from = fetchRowsForMe(s, idx, tokens, rowsAt, rowBytes, h.fp8 ? srcScales : -1, scaleBytes);
                rowsAt = 0;
                scalesAt = (long) maxTokens * rowBytes;
            }
            for (int t = 0; t < tokens; t++) {
                for (int k = 0; k < topk; k++) {
                    long e = idx[t * topk + k];
                    if (e < 0 || e / numLocal != me) continue;
                    int localE = (int) (e - (long) me * numLocal);
                    long dstSlot = (long) localE * slotsPerExpert + count[localE]++;
                    MemorySegment.copy(
                            from, rowsAt + t * rowBytes, local, base + recvOff + dstSlot * rowBytes, rowBytes);
                    if (h.fp8)
                        MemorySegment.copy(
                                from, scalesAt + t * scaleBytes, local, dstScales + dstSlot * scaleBytes, scaleBytes);
                }
            }
        }
        h.position = positions(ids, h.tokens);
        acknowledge(dispatchAck(slot));
        h.numRecv = Arrays.stream(count).sum();
        h.received = true;
    }

    /**
     * Fetches, from source {@code s} that is not mapped here, the rows (and scales, where {@code scalesFrom >= 0}) of
     * its tokens that go to at least one of this rank's experts: each run of such consecutive tokens is one non-blocking
     * get, and one quiet completes them. Over UCX's TCP transport a get per (token, expert) row cost about a round
     * trip each even when not waited for one by one; this also fetches a row sent to two of my experts once. Rows land
     * at their token's place in the staging area, scales after {@code maxTokens} rows.
     */
    private MemorySegment fetchRowsForMe(
            int s, long[] idx, int tokens, long rowsFrom, long rowBytes, long scalesFrom, long scaleBytes) {
        if (stage == null) stage = arena.allocate((long) maxTokens * (2L * hidden + hidden / 32), 64);
        boolean fetching = false;
        for (int t = 0; t < tokens; ) {
            if (!forMe(idx, t)) {
                t++;
                continue;
            }
            int first = t;
            while (t < tokens && forMe(idx, t)) t++;
            long n = t - first;
            fetching |= peers.readNbi(s, rowsFrom + first * rowBytes, stage, first * rowBytes, n * rowBytes);
            if (scalesFrom >= 0)
                fetching |= peers.readNbi(
                        s,
                        scalesFrom + first * scaleBytes,
                        stage,
                        maxTokens * rowBytes + first * scaleBytes,
                        n * scaleBytes);
        }
        if (fetching) peers.completeReads();
        return stage;
    }

    /** Whether token {@code t} of a source's ids goes to at least one of this rank's experts. */
    private boolean forMe(long[] idx, int t) {
        for (int k = 0; k < topk; k++) if (idx[t * topk + k] >= 0 && idx[t * topk + k] / numLocal == me) return true;
        return false;
    }

    /** Where each of my (token, expert) pairs landed: sources before me fill each expert's slots first. */
    private int[] positions(long[][] ids, int t) {
        int[] next = new int[config.numExperts()];
        for (int s = 0; s < me; s++) for (long e : ids[s]) if (e >= 0) next[(int) e]++;
        int[] pos = new int[t * topk];
        long[] mine = ids[me];
        for (int i = 0; i < t * topk; i++) pos[i] = mine[i] >= 0 ? next[(int) mine[i]]++ : -1;
        return pos;
    }

    @Override
    public synchronized LowLatencyCombined lowLatencyCombine(
            Tensor y, Tensor topkIdx, Tensor topkWeights, MoeHandle handle) {
        ensureOpen();
        count("lowLatencyCombine");
        Handle h = own(handle);
        receive(h);
        int slot = h.slot;
        long base = slotBase(slot);
        long[] ids = longs(host("topkIdx", topkIdx));
        long[] sent = peers.readLongs(me, base + sendIdxOff, ids.length);
        for (int i = 0; i < ids.length; i++) {
            if (ids[i] != sent[i])
                throw new IllegalArgumentException("topkIdx[" + i / topk + ", " + i % topk + "] = " + ids[i]
                        + " differs from the ids this rank dispatched with the handle; pass the dispatch's topkIdx");
        }
        float[] weights = host("topkWeights", topkWeights).segment().toArray(ValueLayout.JAVA_FLOAT_UNALIGNED);
        if (pendingCombine[slot] != null) finishCombine(pendingCombine[slot]);
        comm.rma().signalWaitUntil(buffer, combineAck(slot), Cmp.GE, ranks * combinesStaged[slot]);

        MemorySegment recv = local.asSlice(base + recvOff, (long) numLocal * slotsPerExpert * 2 * hidden);
        if (!(startsAt(host("y", y), recv) && !h.fp8)) {
            if (overlaps(y, local))
                throw new IllegalStateException("y is a view of this buffer that a later operation overwrote");
            long rowBytes = 2L * hidden;
            for (int e = 0; e < numLocal; e++) {
                long off = (long) e * slotsPerExpert * rowBytes;
                MemorySegment.copy(y.segment(), off, recv, off, h.recvCount[e] * rowBytes);
            }
        }
        long seq = ++combinesStaged[slot];
        comm.rma().quiet();
        for (int pe = 0; pe < ranks; pe++) comm.rma().atomicSet(buffer, readyCombine(me, slot), seq, pe);

        Tensor out = output(slot, h.tokens);
        CombineOp op = new CombineOp(h, seq, weights, out, new boolean[1]);
        pendingCombine[slot] = op;
        return new LowLatencyCombined(out, () -> finishCombine(op));
    }

    private synchronized void finishCombine(CombineOp op) {
        if (op.done()[0]) return;
        Handle h = op.handle();
        int slot = h.slot;
        for (int r = 0; r < ranks; r++) comm.rma().signalWaitUntil(buffer, readyCombine(r, slot), Cmp.GE, op.seq());
        long rowBytes = 2L * hidden, recv = slotBase(slot) + recvOff;
        long[] ids = new long[h.tokens * topk];
        MemorySegment.copy(local, ValueLayout.JAVA_LONG_UNALIGNED, slotBase(slot) + sendIdxOff, ids, 0, ids.length);
        float[] scratch = new float[hidden], w = new float[topk];
        MemorySegment[] segs = new MemorySegment[topk];
        long[] offs = new long[topk];
        MemorySegment out = op.out().segment();
        long[] order = new long[combineBatch * topk]; // a batch's (expert, pair) keys
        boolean mapped = peers.allMapped();
        for (int t0 = 0; t0 < h.tokens; t0 += combineBatch) {
            int t1 = Math.min(h.tokens, t0 + combineBatch);
            // A batch of tokens' rows read first, one wait for all of them; expert by expert, token by token: my
            // rows lie in token order in each expert's slots, so each expert's reads merge into one get.
            rows.start();
            int n = 0;
            for (int i = t0 * topk; i < t1 * topk; i++) if (ids[i] >= 0) order[n++] = ids[i] << 32 | i;
            if (!mapped) Arrays.sort(order, 0, n); // by expert, then token: what merges (mapped rows need no order)
            for (int j = 0; j < n; j++) {
                int e = (int) (order[j] >>> 32), i = (int) order[j];
                long at = recv + ((long) (e % numLocal) * slotsPerExpert + h.position[i]) * rowBytes;
                rows.read(i - t0 * topk, e / numLocal, at, rowBytes);
            }
            rows.await();
            for (int t = t0; t < t1; t++) {
                int count = 0;
                for (int k = 0; k < topk; k++) {
                    if (ids[t * topk + k] < 0) continue;
                    segs[count] = rows.segs[(t - t0) * topk + k];
                    offs[count] = rows.offsets[(t - t0) * topk + k];
                    w[count++] = op.weights()[t * topk + k];
                }
                MATH.weightedSum(segs, offs, w, count, scratch, out, t * rowBytes, hidden);
            }
        }
        acknowledge(combineAck(slot));
        op.done()[0] = true;
        if (pendingCombine[slot] == op) pendingCombine[slot] = null;
    }

    private Handle own(MoeHandle handle) {
        if (handle instanceof Handle h && h.owner() == this) {
            if (h.invalid) throw new IllegalStateException(h + " is stale: a newer dispatch reused its buffers");
            return h;
        }
        throw new IllegalArgumentException("handle was not made by this low-latency MoE buffer: " + handle);
    }
}
