package dev.unicomm.backend.nvshmem.internal.moe;

import static dev.unicomm.backend.nvshmem.internal.NvMoeArgs.*;

import dev.unicomm.api.Combined;
import dev.unicomm.api.CommException;
import dev.unicomm.api.DType;
import dev.unicomm.api.Dispatched;
import dev.unicomm.api.ExpertMask;
import dev.unicomm.api.LowLatencyCombined;
import dev.unicomm.api.LowLatencyDispatched;
import dev.unicomm.api.LowLatencyDispatchedOnStream;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.MoeConfig.Mode;
import dev.unicomm.api.MoeHandle;
import dev.unicomm.api.MoeLayout;
import dev.unicomm.api.Stream;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Tensor;
import dev.unicomm.backend.nvshmem.internal.MoeHost;
import dev.unicomm.backend.nvshmem.internal.NvMoeArgs;
import dev.unicomm.backend.nvshmem.internal.NvOps;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * MoE dispatch/combine with CUDA kernels that move tokens between the PEs' GPU memory with loads
 * and stores (every PE maps every other PE's symmetric heap: one node). Semantics, orderings and
 * lifetimes are {@link MoeBuffer}'s. Tensors: {@code x}, {@code scales} and {@code y} in this PE's
 * GPU memory, 16-byte aligned; {@code topkIdx} and weights in GPU memory or native host memory
 * (host ones are checked in Java and copied over; GPU ones are checked by the kernels, which
 * skip a bad entry and report it as {@link IllegalArgumentException} when the operation completes
 * (low-latency: at its hook), so a bad id never writes out of bounds or leaves a peer waiting).
 * Results are views of GPU memory. {@link #layout} results stay valid until the next layout.
 *
 * <p>Normal operations complete before they return; low-latency ones return once the kernel is
 * queued and their hook waits for it. Kernels of all MoE buffers of a communicator run on one
 * stream in issue order (so every rank must issue them in the same order, as for any collective) with at most
 * {@code unicomm.nvshmem.moe.sms} blocks in normal mode and {@code unicomm.nvshmem.moe.ll.sms} in low-latency mode
 * (defaults: this PE's share of the GPU's SMs less two; low-latency: the whole GPU when the PE has it alone), so
 * PEs sharing one GPU always have all their blocks resident while they wait for each other.
 */
public final class NvshmemMoe implements MoeBuffer {
    private static final int NORMAL_THREADS = 512, LL_THREADS = 1024;

    private final MoeHost c;
    private final MoeConfig cfg;
    private final int ranks, me, local, maxT, hidden, topk, experts, blocks;
    private final MoeSymLayout lay;
    private final SymmetricBuffer sym;
    private final long base, stream;
    private final MoeCompletion done;
    private final MoeTensors tensors;
    private final long stageIdx, stageW, out, outW, route, recvCount, layoutRank, layoutExpert, layoutInRank, peers;
    private final NormalRoutes routes;
    private final MoeDeviceMemory memory = new MoeDeviceMemory();
    private final NvMoeArgs args = new NvMoeArgs();
    private long normalGen,
            dispatches,
            readySignals,
            llGen; // readySignals: combines and (with an inactive rank) their barriers
    private final long[] llDispatches = new long[2], llCombines = new long[2];
    private boolean lastWasCombine, open = true;
    /** Stream-ordered low-latency mode: device counters {generation, dispatches, combines} (0 in normal mode). */
    private final long ctl;
    /** The stream-ordered dispatch its combine has not consumed yet (they alternate). */
    private StreamOrderedHandle pendingOnStream;

    private boolean usedOnStream;
    /** Kernel timing (unicomm.nvshmem.moe.profile), or null. */
    private final MoeKernelTimes times;
    /** The active-rank mask the kernels read (MoeBuffer.setActiveRanks). */
    private final MoeActiveMask mask;
    /** Elastic (unicomm.nvshmem.moe.elastic): kernels mark silent peers inactive instead of failing. */
    private final boolean elastic;
    /** The stream the latest stream-ordered operation ran on: mask changes are queued there. */
    private long lastOnStream;

    public NvshmemMoe(MoeHost c, MoeConfig cfg, SymmetricBuffer sym, long[] peerBases, int blocks, boolean viaNvshmem) {
        this.c = c;
        this.cfg = cfg;
        this.ranks = c.size();
        this.me = c.rank();
        this.local = cfg.numLocalExperts(ranks);
        this.maxT = cfg.maxTokensPerRank();
        this.hidden = cfg.hidden();
        this.topk = cfg.numTopk();
        this.experts = cfg.numExperts();
        this.blocks = blocks;
        this.times =
                c.settings().moeProfile() != 0 ? new MoeKernelTimes(c.settings().moeProfile()) : null;
        this.lay = MoeSymLayout.of(cfg, ranks);
        this.sym = sym;
        this.base = sym.address();
        boolean normal = cfg.mode() == Mode.NORMAL;
        long h2 = 2L * hidden;
        this.stream = c.moeStream();
        this.tensors = new MoeTensors(c, stream);
        this.done = new MoeCompletion(
                c, stream, Math.max(1 + local, 2 * ranks), alloc(MoeCompletion.deviceBytes()), experts);
        this.peers = alloc(8L * ranks);
        this.stageIdx = alloc(8L * maxT * topk);
        this.stageW = alloc(4L * ranks * maxT * topk);
        this.out = alloc((normal ? 1 : 2) * maxT * h2);
        this.outW = normal ? alloc(4L * maxT * topk) : 0;
        this.route = normal ? 0 : alloc(2L * maxT * topk * 8);
        this.recvCount = normal ? 0 : alloc(2L * local * 4);
        this.layoutRank = alloc(4L * ranks);
        this.layoutExpert = alloc(4L * experts);
        this.layoutInRank = alloc((long) maxT * ranks);
        this.ctl = normal ? 0 : alloc(32);
        long partCounts = normal ? alloc(4L * blocks * (experts + ranks)) : 0; // the routing kernel's per-block counts
        // NVSHMEM transport: rows are staged per warp (quantised FP8 rows, 512-byte pieces pulled by combines).
        long perWarp = viaNvshmem
                ? MoeSymLayout.align(Math.max(Math.max(4L * 512, (long) topk * 512), hidden + hidden / 32L + 16))
                : 0;
        long scratch = viaNvshmem ? alloc((long) blocks * (LL_THREADS / 32) * perWarp) : 0;
        this.routes = new NormalRoutes(memory, 4L * maxT * ranks + 4L * ranks);
        // Through pinned memory (slot 0's info area, free until the first operation): a Java array has no stable native
        // address.
        MemorySegment.copy(
                MemorySegment.ofArray(peerBases),
                0,
                MemorySegment.ofAddress(done.info(0)).reinterpret(8L * ranks),
                0,
                8L * ranks);
        NvOps.copyAsync(peers, done.info(0), 8L * ranks, stream);
        NvOps.fillAsync(done.device, 0, MoeCompletion.deviceBytes(), stream);
        if (ctl != 0) NvOps.fillAsync(ctl, 0, 32, stream);
        this.mask = new MoeActiveMask(memory, ranks, maxT, stream);
        this.elastic = c.settings().moeElastic();
        done.onLost((kernel, rank, step) -> {
            int[] lost = mask.refresh();
            if (lost.length > 0)
                System.getLogger("dev.unicomm")
                        .log(
                                System.Logger.Level.WARNING,
                                "MoE buffer (rank " + me + "): rank(s) " + java.util.Arrays.toString(lost)
                                        + " did not answer within " + c.timeout() + " and are inactive now; active: "
                                        + mask.asExpertMask() + " (first found: rank " + rank + ", " + kernel + " step "
                                        + step + ")");
        });
        NvOps.fillAsync(base, 0, lay.total(), stream);
        c.await(stream, "MoE buffer: clearing its memory");
        args.set(RANK, me)
                .set(NRANKS, ranks)
                .set(HIDDEN, hidden)
                .set(TOPK, topk)
                .set(EXPERTS, experts)
                .set(LOCAL_EXPERTS, local)
                .set(MAX_TOKENS, maxT)
                .set(PEERS, peers)
                .set(OFF_CNT, lay.cnt())
                .set(OFF_RECV, lay.recv())
                .set(OFF_RECV_SCALES, lay.recvScales())
                .set(OFF_RECV_IDX, lay.recvIdx())
                .set(OFF_RECV_W, lay.recvW())
                .set(OFF_DONE, lay.done())
                .set(OFF_READY, lay.ready())
                .set(REGION, lay.region())
                .set(OFF_COMB, lay.comb())
                .set(PART_COUNTS, partCounts)
                .set(BLOCKS, blocks)
                .set(TRANSPORT, viaNvshmem ? 1 : 0)
                .set(SCRATCH, scratch)
                .set(SCRATCH_PER_WARP, perWarp)
                .set(TIMEOUT_NS, c.timeout().toNanos())
                .set(STREAM, stream)
                .set(ROUTE, route)
                .set(RECV_COUNT, recvCount)
                .set(LAYOUT_RANK, layoutRank)
                .set(LAYOUT_EXPERT, layoutExpert)
                .set(LAYOUT_IN_RANK, layoutInRank)
                .set(ACTIVE, mask.device())
                .set(ELASTIC, c.settings().moeElastic() ? 1 : 0)
                .set(HOST_MASK, mask.hostMirror());
        // Every PE has cleared its block before anyone writes into a peer's.
        c.barrierAll(stream);
        c.await(stream, "MoE buffer: barrier after clearing");
    }

    private long alloc(long bytes) {
        return memory.alloc(bytes);
    }

    @Override
    public MoeConfig config() {
        return cfg;
    }

    @Override
    public synchronized long footprintBytes() {
        return lay.total() + memory.bytes();
    }

    /** Points the argument block at completion slot {@code s} for the next operation; returns its stamp. */
    private long useSlot(int s) {
        long stamp = done.next(s);
        args.set(ERR, done.err(s))
                .set(INFO, done.info(s))
                .set(HOST_SLOT, done.slot(s))
                .set(SEQ, stamp)
                .set(GRID_DONE, done.gridDone(s))
                // Host-sequenced: the mask of this moment is known here, so with every rank active (and no kernel
                // marking peers itself) the kernels skip the mask's loads (ucn_moe_args.all_live).
                .set(ALL_LIVE, !elastic && !mask.anyInactive() ? 1 : 0);
        return stamp;
    }

    // ----------------------------------------------------------------------------------- layout

    @Override
    public synchronized MoeLayout layout(Tensor topkIdx) {
        ensureOpen();
        int t = (int) topkIdx.dim(0);
        args.clearOperation().set(TOKENS, t).set(TOPK_IDX, tensors.staged("topkIdx", topkIdx, stageIdx));
        long stamp = useSlot(MoeCompletion.SYNC);
        NvOps.moeLayout(args.words());
        done.await(MoeCompletion.SYNC, stamp, "moe_layout_kernel");
        return new MoeLayout(
                tensors.device(layoutRank, DType.INT32, ranks),
                tensors.device(layoutExpert, DType.INT32, experts),
                tensors.device(layoutInRank, DType.BOOL, t, ranks));
    }

    // ------------------------------------------------------------------------------ normal mode

    @Override
    public synchronized Dispatched dispatch(
            Tensor x, Tensor scales, Tensor topkIdx, Tensor topkWeights, MoeLayout layout, int expertAlignment) {
        long entered = System.nanoTime();
        ensureOpen();
        int t = (int) topkIdx.dim(0);
        boolean fp8 = x.dtype() == DType.FP8_E4M3;
        long xa = tensors.aligned("x", x), sa = fp8 ? tensors.aligned("scales", scales) : 0;
        long idx = tensors.staged("topkIdx", topkIdx, stageIdx), w = tensors.staged("topkWeights", topkWeights, stageW);
        NormalHandle h = routes.newHandle(this, t, mask.epoch());
        normalGen++;
        dispatches++;
        args.clearOperation()
                .set(TOKENS, t)
                .set(FP8, fp8 ? 1 : 0)
                .set(X, xa)
                .set(X_SCALES, sa)
                .set(TOPK_IDX, idx)
                .set(TOPK_W, w)
                .set(POS, h.pos)
                .set(SEND_OFF, h.pos + 4L * maxT * ranks)
                .set(GEN, normalGen)
                .set(EXPECTED, dispatches * SIGNAL_PER_OP)
                .set(THREADS, NORMAL_THREADS)
                .set(DROPPED, elastic || mask.anyInactive() ? mask.droppedHost(MoeActiveMask.NORMAL) : 0);
        long stamp = useSlot(MoeCompletion.SYNC);
        long launch = System.nanoTime();
        NvOps.moeNormalDispatch(args.words(), false);
        long launched = System.nanoTime();
        lastWasCombine = false;
        done.await(MoeCompletion.SYNC, stamp, "moe_normal_dispatch_kernel");
        if (times != null) {
            times.record(
                    fp8 ? "normal dispatch fp8" : "normal dispatch",
                    "normal count exchange (prep kernel)",
                    fp8 ? "normal dispatch fp8 data kernel" : "normal dispatch data kernel");
            times.recordHost("host: normal dispatch before launch", launch - entered);
            times.recordHost("host: normal dispatch launch", launched - launch);
            times.recordHost("host: normal dispatch whole call (incl. kernel timing)", System.nanoTime() - entered);
        }
        int n = done.infoInt(MoeCompletion.SYNC, 0);
        int[] perExpert = new int[local];
        for (int e = 0; e < local; e++) {
            int v = done.infoInt(MoeCompletion.SYNC, 1 + e);
            perExpert[e] = (v + expertAlignment - 1) / expertAlignment * expertAlignment;
        }
        h.numRecv = n;
        int[] dropped = mask.anyInactive() ? mask.dropped(MoeActiveMask.NORMAL, t, new int[t]) : null;
        return received(fp8, n, perExpert, true, topkWeights != null, h, dropped);
    }

    @Override
    public synchronized Dispatched dispatch(Tensor x, Tensor scales, MoeHandle handle) {
        ensureOpen();
        NormalHandle h = normalHandle(handle, "dispatch(x, scales, handle)");
        boolean fp8 = x.dtype() == DType.FP8_E4M3;
        long xa = tensors.aligned("x", x), sa = fp8 ? tensors.aligned("scales", scales) : 0;
        // No count exchange; the kernel first waits until every PE has entered this dispatch (so is done with
        // its receive area: results, combines), through generation stamps in the count matrix.
        normalGen++;
        dispatches++;
        args.clearOperation()
                .set(TOKENS, h.tokens)
                .set(FP8, fp8 ? 1 : 0)
                .set(X, xa)
                .set(X_SCALES, sa)
                .set(POS, h.pos)
                .set(SEND_OFF, h.pos + 4L * maxT * ranks)
                .set(GEN, normalGen)
                .set(EXPECTED, dispatches * SIGNAL_PER_OP)
                .set(THREADS, NORMAL_THREADS);
        long stamp = useSlot(MoeCompletion.SYNC);
        NvOps.moeNormalDispatch(args.words(), true);
        lastWasCombine = false;
        done.await(MoeCompletion.SYNC, stamp, "moe_normal_dispatch_kernel (cached routing)");
        if (times != null)
            times.record(
                    fp8 ? "normal dispatch fp8 cached" : "normal dispatch cached",
                    "cached dispatch kernel (waits for every PE, then sends)",
                    null);
        return received(
                fp8, h.numRecv, h.perExpert, false, false, h, null); // the checked layer reports the handle's drops
    }

    private Dispatched received(
            boolean fp8, int n, int[] perExpert, boolean ids, boolean weights, NormalHandle h, int[] dropped) {
        h.perExpert = perExpert;
        Tensor recvX = tensors.device(base + lay.recv(), fp8 ? DType.FP8_E4M3 : DType.BF16, n, hidden);
        Tensor recvScales =
                fp8 ? tensors.device(base + lay.recvScales(), DType.FP32, n, hidden / MoeConfig.FP8_BLOCK) : null;
        Tensor recvIdx = ids ? tensors.device(base + lay.recvIdx(), DType.INT64, n, topk) : null;
        Tensor recvW = weights ? tensors.device(base + lay.recvW(), DType.FP32, n, topk) : null;
        return new Dispatched(recvX, recvScales, recvIdx, recvW, perExpert.clone(), h, dropped);
    }

    @Override
    public synchronized Combined combine(Tensor y, MoeHandle handle, Tensor topkWeights) {
        ensureOpen();
        NormalHandle h = normalHandle(handle, "combine");
        long ya = tensors.aligned("y", y);
        long yw = 0;
        if (topkWeights != null) {
            boolean inPlace = !topkWeights.memory().kind().isHost()
                    && topkWeights.memory().address() == base + lay.recvW();
            yw = inPlace ? 0 : tensors.staged("topkWeights", topkWeights, stageW);
        }
        // Peers may still be pulling the previous combine's rows out of this PE's receive area. With an
        // inactive rank nvshmem's barrier would wait for it: the kernel then runs a barrier of the active PEs.
        long preBarrier = 0;
        // Elastic buffers always use the kernel's barrier: nvshmem's has no deadline, so a peer that died would stall
        // it.
        if (lastWasCombine && (elastic || mask.anyInactive())) preBarrier = ++readySignals * SIGNAL_PER_OP;
        else if (lastWasCombine) c.barrierAll(stream);
        readySignals++;
        args.clearOperation()
                .set(TOKENS, h.tokens)
                .set(RECV_TOKENS, h.numRecv)
                .set(POS, h.pos)
                .set(SEND_OFF, h.pos + 4L * maxT * ranks)
                .set(Y, ya == base + lay.recv() ? 0 : ya)
                .set(Y_W, yw)
                .set(OUT, out)
                .set(OUT_W, topkWeights != null ? outW : 0)
                .set(EXPECTED, readySignals * SIGNAL_PER_OP)
                .set(THREADS, NORMAL_THREADS)
                .set(PRE_BARRIER, preBarrier);
        long stamp = useSlot(MoeCompletion.SYNC);
        NvOps.moeNormalCombine(args.words());
        lastWasCombine = true;
        done.await(MoeCompletion.SYNC, stamp, "moe_normal_combine_kernel");
        if (times != null) times.record("normal combine", "normal combine kernel", null);
        return new Combined(
                tensors.device(out, DType.BF16, h.tokens, hidden),
                topkWeights != null ? tensors.device(outW, DType.FP32, h.tokens, topk) : null);
    }

    private NormalHandle normalHandle(MoeHandle handle, String op) {
        if (!(handle instanceof NormalHandle h) || h.owner != this)
            throw new IllegalArgumentException(
                    "handle was made by another MoE buffer; pass the handle of a dispatch on this one");
        requireEpoch(h.maskEpoch, op);
        return h;
    }

    /** A handle routed under an older active-rank mask may name ranks inactive now: it is not used. */
    private void requireEpoch(long epoch, String op) {
        if (epoch != mask.epoch())
            throw new IllegalStateException(op + ": the handle was made before the active ranks changed (now "
                    + mask.asExpertMask() + "); dispatch again with the new mask");
    }

    // ------------------------------------------------------------------------- low-latency mode

    @Override
    public synchronized LowLatencyDispatched lowLatencyDispatch(Tensor x, Tensor topkIdx, boolean useFp8) {
        ensureOpen();
        if (usedOnStream)
            throw new IllegalStateException("this buffer ran stream-ordered low-latency operations (device-sequenced); "
                    + "host-sequenced ones need a buffer of their own");
        int t = (int) topkIdx.dim(0);
        long xa = tensors.aligned("x", x), idx = tensors.staged("topkIdx", topkIdx, stageIdx);
        llGen++;
        int p = (int) (llGen & 1);
        llDispatches[p]++;
        args.clearOperation()
                .set(TOKENS, t)
                .set(FP8, useFp8 ? 1 : 0)
                .set(X, xa)
                .set(TOPK_IDX, idx)
                .set(GEN, llGen)
                .set(EXPECTED, llDispatches[p] * SIGNAL_PER_OP)
                .set(THREADS, LL_THREADS)
                .set(DROPPED, elastic || mask.anyInactive() ? mask.droppedHost(MoeActiveMask.LL_EVEN + p) : 0);
        long stamp = useSlot(MoeCompletion.LL_DISPATCH + p);
        NvOps.moeLowLatencyDispatch(args.words());
        if (times != null)
            times.record(
                    useFp8 ? "ll dispatch fp8" : "ll dispatch bf16",
                    useFp8 ? "ll dispatch fp8 kernel (sends + arrival)" : "ll dispatch bf16 kernel (sends + arrival)",
                    null);
        LowLatencyHandle h = new LowLatencyHandle(
                this, llGen, t, stamp, new int[local], mask.epoch(), elastic || mask.anyInactive() ? new int[t] : null);
        long region = base + lay.recv() + p * lay.region(), slots = (long) ranks * maxT;
        Tensor recvX = tensors.device(region, useFp8 ? DType.FP8_E4M3 : DType.BF16, local, slots, hidden);
        Tensor scales = useFp8
                ? tensors.device(
                        region + local * slots * hidden, DType.FP32, local, slots, hidden / MoeConfig.FP8_BLOCK)
                : null;
        return new LowLatencyDispatched(recvX, scales, h.counts, h, () -> receive(h), h.dropped);
    }

    private synchronized void receive(LowLatencyHandle h) {
        if (h.received) return;
        ensureOpen();
        if (llGen - h.gen >= 2)
            throw new IllegalStateException("low-latency dispatch #" + h.gen
                    + " is stale: its receive buffer was reused by dispatch #" + llGen);
        int slot = MoeCompletion.LL_DISPATCH + (int) (h.gen & 1);
        // The dispatch kernel's block 0 stamps the slot once every PE's tokens have arrived.
        done.await(slot, h.stamp, "moe_ll_dispatch_kernel");
        int sum = 0;
        for (int e = 0; e < local; e++) sum += h.counts[e] = done.infoInt(slot, e);
        if (h.dropped != null) mask.dropped(MoeActiveMask.LL_EVEN + (int) (h.gen & 1), h.tokens, h.dropped);
        h.numRecv = sum;
        h.received = true;
    }

    @Override
    public synchronized LowLatencyCombined lowLatencyCombine(
            Tensor y, Tensor topkIdx, Tensor topkWeights, MoeHandle handle) {
        ensureOpen();
        if (!(handle instanceof LowLatencyHandle h) || h.owner != this)
            throw new IllegalArgumentException(
                    "handle was made by another MoE buffer; pass the handle of a dispatch on this one");
        requireEpoch(h.maskEpoch, "lowLatencyCombine");
        long ya = tensors.aligned("y", y);
        receive(h);
        long w = tensors.staged("topkWeights", topkWeights, stageW);
        int p = (int) (h.gen & 1);
        long region = base + lay.recv() + p * lay.region();
        llCombines[p]++;
        args.clearOperation()
                .set(TOKENS, h.tokens)
                .set(Y, ya == region ? 0 : ya)
                .set(TOPK_W, w)
                .set(OUT, out)
                .set(GEN, h.gen)
                .set(EXPECTED, llCombines[p] * SIGNAL_PER_OP)
                .set(THREADS, LL_THREADS);
        int slot = MoeCompletion.LL_COMBINE + p;
        long stamp = useSlot(slot);
        NvOps.moeLowLatencyCombine(args.words());
        if (times != null) times.record("ll combine", "ll combine kernel", null);
        Tensor x = tensors.device(out + (long) p * maxT * 2 * hidden, DType.BF16, h.tokens, hidden);
        boolean[] received = {false};
        return new LowLatencyCombined(x, () -> {
            synchronized (NvshmemMoe.this) {
                if (received[0]) return;
                done.await(slot, stamp, "moe_ll_combine_kernel");
                received[0] = true;
            }
        });
    }

    // ------------------------------------------------------------- stream-ordered low-latency mode

    @Override
    public synchronized LowLatencyDispatchedOnStream lowLatencyDispatch(
            Stream on, Tensor x, Tensor topkIdx, boolean useFp8) {
        ensureOpen();
        reportStreamErrors();
        if (llGen > 0)
            throw new IllegalStateException(
                    "this buffer ran host-sequenced low-latency operations; stream-ordered ones need a buffer of their own");
        if (pendingOnStream != null)
            throw new IllegalStateException(
                    "stream-ordered low-latency operations alternate: combine the previous dispatch first");
        int t = (int) topkIdx.dim(0);
        long xa = tensors.aligned("x", x), idx = tensors.onDevice("topkIdx", topkIdx);
        usedOnStream = true;
        // Drops go to device memory, always named: a captured graph replayed after a mask change writes them too.
        args.clearOperation()
                .set(TOKENS, t)
                .set(FP8, useFp8 ? 1 : 0)
                .set(X, xa)
                .set(TOPK_IDX, idx)
                .set(THREADS, LL_THREADS)
                .set(DROPPED, mask.droppedDevice());
        lastOnStream = on.handle();
        launchOnStream(on, MoeCompletion.LL_DISPATCH, () -> NvOps.moeLowLatencyDispatch(args.words()));
        StreamOrderedHandle h = new StreamOrderedHandle(this, t);
        pendingOnStream = h;
        long region = base + lay.recv(), slots = (long) ranks * maxT;
        Tensor recvX = tensors.device(region, useFp8 ? DType.FP8_E4M3 : DType.BF16, local, slots, hidden);
        Tensor scales = useFp8
                ? tensors.device(
                        region + local * slots * hidden, DType.FP32, local, slots, hidden / MoeConfig.FP8_BLOCK)
                : null;
        return new LowLatencyDispatchedOnStream(recvX, scales, tensors.device(recvCount, DType.INT32, local), h);
    }

    @Override
    public synchronized Tensor lowLatencyCombine(
            Stream on, Tensor y, Tensor topkIdx, Tensor topkWeights, MoeHandle handle) {
        ensureOpen();
        reportStreamErrors();
        if (!(handle instanceof StreamOrderedHandle h) || h.owner != this || h != pendingOnStream)
            throw new IllegalArgumentException(
                    "handle is not this buffer's latest stream-ordered low-latency dispatch");
        long ya = tensors.aligned("y", y), w = tensors.onDevice("topkWeights", topkWeights);
        args.clearOperation()
                .set(TOKENS, h.tokens)
                .set(Y, ya == base + lay.recv() ? 0 : ya)
                .set(TOPK_W, w)
                .set(OUT, out)
                .set(THREADS, LL_THREADS);
        launchOnStream(on, MoeCompletion.LL_COMBINE, () -> NvOps.moeLowLatencyCombine(args.words()));
        pendingOnStream = null;
        return tensors.device(out, DType.BF16, h.tokens, hidden);
    }

    /** Queues a device-sequenced kernel on the caller's stream (nothing the host waits for: capturable). */
    private void launchOnStream(Stream on, int slot, Runnable launch) {
        args.set(CTL, ctl)
                .set(ALL_LIVE, 0) // a CUDA graph may replay this launch after a mask change: the kernels read the mask
                .set(STREAM, on.handle())
                .set(ERR, done.err(slot))
                .set(INFO, done.info(slot))
                .set(HOST_SLOT, done.slot(slot))
                .set(SEQ, 0)
                .set(GRID_DONE, done.gridDone(slot));
        try {
            launch.run();
        } finally {
            args.set(STREAM, stream);
        }
    }

    /** Bad top-k ids the stream-ordered kernels skipped since the last call: reported now. */
    private void reportStreamErrors() {
        if (!usedOnStream) return;
        for (int slot : new int[] {MoeCompletion.LL_DISPATCH, MoeCompletion.LL_COMBINE})
            done.throwRecorded(
                    slot,
                    slot == MoeCompletion.LL_DISPATCH
                            ? "moe_ll_dispatch_kernel (stream-ordered, earlier call)"
                            : "moe_ll_combine_kernel (stream-ordered, earlier call)");
    }

    // --------------------------------------------------------------------------- active ranks

    @Override
    public synchronized ExpertMask activeRanks() {
        ensureOpen();
        return mask.asExpertMask();
    }

    /**
     * Queued on the stream the buffer's operations run on (the caller's stream after stream-ordered
     * ones: a graph replayed there sees the change from its next replay on). Ranks only leave
     * ({@link MoeActiveMask}); a handle or low-latency result of an older mask is refused afterwards.
     */
    @Override
    public synchronized void setActiveRanks(ExpertMask m) {
        ensureOpen();
        if (m == null) throw new IllegalArgumentException("mask must not be null");
        if (m.jobSize() != ranks)
            throw new IllegalArgumentException(
                    "mask " + m + " is for a job of " + m.jobSize() + " ranks; this buffer serves " + ranks);
        if (!m.rankActive(me))
            throw new IllegalArgumentException(
                    "mask " + m + " leaves this rank (" + me + ") inactive; only active ranks set the mask");
        if (pendingOnStream != null)
            throw new IllegalStateException(
                    "a stream-ordered low-latency dispatch waits for its combine; change the active ranks after it");
        mask.set(m, usedOnStream ? lastOnStream : stream);
    }

    // ---------------------------------------------------------------------------------- helpers

    private void ensureOpen() {
        if (!open) throw new IllegalStateException("MoE buffer " + cfg + " is closed");
        c.ensureOpen();
    }

    @Override
    public synchronized void close() {
        if (!open) return;
        open = false;
        if (times != null) for (String line : times.summary(me)) System.err.println(line);
        if (c.aborted()) {
            closeAfterAbort();
            return;
        }
        if (mask.anyInactive()) { // an inactive PE would never join the collective free
            closeWithoutInactive();
            return;
        }
        List<String> problems = new ArrayList<>();
        try {
            c.await(stream, "closing the MoE buffer");
        } catch (RuntimeException e) {
            problems.add("draining the stream: " + e.getMessage());
        }
        try {
            sym.close(); // collective
        } catch (RuntimeException e) {
            problems.add("symmetric block: " + e.getMessage());
        }
        memory.freeAll(problems);
        try {
            done.free();
            mask.free();
        } catch (RuntimeException e) {
            problems.add("stream/pinned: " + e.getMessage());
        }
        if (!problems.isEmpty()) throw new CommException("closing the NVSHMEM MoE buffer had errors: " + problems);
    }

    /**
     * Close after a peer died: nothing collective (the dead PE would never join); our kernels are told
     * to stop waiting, and only if the stream then drains within the timeout is the local memory freed
     * (freeing memory a kernel still uses would fault). The symmetric block is left to process exit.
     */
    private void closeAfterAbort() {
        done.abortKernels();
        long until = System.nanoTime() + c.timeout().toNanos();
        boolean drained;
        while (!(drained = NvOps.streamDone(stream)) && System.nanoTime() < until) LockSupport.parkNanos(100_000);
        try {
            sym.close(); // local bookkeeping only: the heap skips nvshmem_free after an abort
        } catch (RuntimeException e) {
            // the communicator may be closed already; its memory goes with the process either way
        }
        if (!drained) return;
        memory.freeAll(null);
        done.free();
        mask.free();
    }

    /**
     * Close while a rank is inactive: this PE's kernels are drained and its local memory freed, but
     * the symmetric block stays until the job ends (nvshmem_free is collective over every PE of the
     * job, and an inactive PE, dead or not, does not take part).
     */
    private void closeWithoutInactive() {
        c.await(stream, "closing the MoE buffer (a rank is inactive: local memory only)");
        memory.freeAll(null);
        done.free();
        mask.free();
    }

    @Override
    public String toString() {
        return "NvshmemMoe[" + cfg + ", " + blocks + " blocks, "
                + (args.get(TRANSPORT) == 1 ? "NVSHMEM puts/gets" : "loads/stores") + ", rank " + me + "/" + ranks
                + "]";
    }
}
