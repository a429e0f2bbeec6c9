package dev.unicomm.benchmarks.bench;

import dev.unicomm.api.Combined;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.Dispatched;
import dev.unicomm.api.LowLatencyCombined;
import dev.unicomm.api.LowLatencyDispatched;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.MoeLayout;
import dev.unicomm.api.Tensor;
import dev.unicomm.api.Unicomm;
import dev.unicomm.collectives.fp8.Fp8Quantiser;
import dev.unicomm.moe.reference.Bf16;
import dev.unicomm.moe.reference.Fp8E4m3;
import dev.unicomm.moe.reference.KitTensors;
import dev.unicomm.moe.reference.MoeReference;
import dev.unicomm.moe.reference.TokenBatch;
import dev.unicomm.spi.BackendSettings;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * One rank of {@code unicomm bench moe} (started by the launcher). Runs DeepEP's test operations
 * on the portable or native MoE, verifies the first results against {@link MoeReference}, then
 * times each operation interleaved with its copy bound: the same bytes this rank receives, copied
 * as plain {@code MemorySegment} copies from the peers' symmetric memory into private memory by
 * every rank at once, until the last rank is done ({@link MoeCopyBound#time}: no synchronisation timed).
 * Prints {@code MOE,op,rank,bytes,ns,boundNs,verified,footprint,remoteIn,remoteOut,local} lines: the last three are
 * the bytes this rank receives from other ranks, sends to other ranks and moves within its own memory (the
 * roofline's inputs). Normal mode also times the dispatch that reuses a handle's routing (DeepEP's {@code handle=}).
 *
 * <p>Arguments: {@code experts hidden tokens topk llTokens iters llIters verify(0/1) seed modes(normal,ll,stream)
 * [inactive]}; {@code stream} adds {@link MoeLowLatencyPair}; {@code inactive} > 0 adds {@link MoeMaskedRounds}.
 */
public final class MoeBenchWorker {
    private MoeBenchWorker() {}

    /** Print every timed normal dispatch (with unicomm.nvshmem.moe.profile, for the kernel breakdown). */
    private static final boolean PROFILE =
            profiling(BackendSettings.fromEnvironment().get("nvshmem.moe.profile"));

    /** As the backend reads unicomm.nvshmem.moe.profile: anything but unset or "false" times the kernels. */
    private static boolean profiling(String value) {
        return value != null && !value.trim().equalsIgnoreCase("false");
    }

    record Params(
            int experts,
            int hidden,
            int tokens,
            int topk,
            int llTokens,
            int iters,
            int llIters,
            boolean verify,
            long seed,
            boolean normal,
            boolean lowLatency,
            boolean pairOnStream,
            int inactive) {
        static Params parse(String[] a) {
            return new Params(
                    Integer.parseInt(a[0]),
                    Integer.parseInt(a[1]),
                    Integer.parseInt(a[2]),
                    Integer.parseInt(a[3]),
                    Integer.parseInt(a[4]),
                    Integer.parseInt(a[5]),
                    Integer.parseInt(a[6]),
                    a[7].equals("1"),
                    Long.parseLong(a[8]),
                    a[9].contains("normal"),
                    a[9].contains("ll"),
                    a[9].contains("stream"),
                    a.length > 10 ? Integer.parseInt(a[10]) : 0);
        }
    }

    public static void main(String[] args) {
        Params p = Params.parse(args);
        try (BenchRecording jfr = BenchRecording.startIfRequested();
                Communicator comm = Unicomm.connect()) {
            MoeMaskedRounds.check(comm, p.inactive());
            if (p.normal()) normal(comm, p);
            if (p.lowLatency()) lowLatency(comm, p);
            // Host wall only: the kernel-timed run would time its own alignment barriers.
            if (p.lowLatency() && p.pairOnStream() && !PROFILE) MoeLowLatencyPair.run(comm, p);
        }
    }

    /**
     * This rank's generated top-k ids and weights, as arrays (for the reference) and as tensors where
     * a framework keeps them: in device memory for a GPU backend.
     */
    record Routing(long[] ids, float[] weights, Tensor idx, Tensor w) {
        static Routing of(Arena arena, KitTensors mem, MoeBenchData data, int rank, int tokens) {
            long[] ids = data.topk(rank, tokens);
            float[] weights = data.weights(rank, tokens);
            Tensor idx = Tensor.allocate(arena, DType.INT64, tokens, data.topk);
            MemorySegment.copy(ids, 0, idx.segment(), ValueLayout.JAVA_LONG_UNALIGNED, 0, ids.length);
            Tensor w = Tensor.allocate(arena, DType.FP32, tokens, data.topk);
            MemorySegment.copy(weights, 0, w.segment(), ValueLayout.JAVA_FLOAT_UNALIGNED, 0, weights.length);
            return new Routing(ids, weights, mem.place(idx), mem.place(w));
        }
    }

    // ------------------------------------------------------------------------------------ normal

    static void normal(Communicator comm, Params p) {
        int me = comm.rank(), ranks = comm.size(), h = p.hidden(), k = p.topk(), t = p.tokens();
        boolean fp8 = h % 128 == 0;
        MoeConfig cfg = new MoeConfig(MoeConfig.Mode.NORMAL, p.experts(), h, t, k, fp8);
        MoeBenchData data = new MoeBenchData(p.seed(), p.experts(), h, k);
        try (Arena arena = Arena.ofShared();
                KitTensors mem = new KitTensors(comm);
                MoeMaskedRounds.Held held = MoeMaskedRounds.open(comm, cfg, p.inactive());
                AbortOnFailure failFast = new AbortOnFailure(comm, "bench moe, normal mode")) {
            MoeBuffer moe = held.moe();
            Tensor xh = Tensor.allocate(arena, DType.BF16, t, h);
            Tensor qh = fp8 ? Tensor.allocate(arena, DType.FP8_E4M3, t, h) : null,
                    sh = fp8 ? Tensor.allocate(arena, DType.FP32, t, h / 128) : null;
            short[] row = new short[h];
            byte[] codes = new byte[h];
            float[] scales = new float[h / 128];
            for (int i = 0; i < t; i++) {
                data.row(me, i, row);
                MemorySegment.copy(row, 0, xh.segment(), ValueLayout.JAVA_SHORT_UNALIGNED, (long) i * 2 * h, h);
                if (!fp8) continue;
                Fp8E4m3.quantiseRow(row, 0, h, codes, 0, scales, 0);
                MemorySegment.copy(codes, 0, qh.segment(), ValueLayout.JAVA_BYTE, (long) i * h, h);
                MemorySegment.copy(
                        scales, 0, sh.segment(), ValueLayout.JAVA_FLOAT_UNALIGNED, (long) i * (h / 128) * 4, h / 128);
            }
            Tensor x = mem.place(xh), xq = fp8 ? mem.place(qh) : null, xs = fp8 ? mem.place(sh) : null;
            Routing routing = Routing.of(arena, mem, data, me, t);
            Tensor idx = routing.idx(), w = routing.w();
            System.out.println(InterHostTraffic.of(
                            comm.topology(), data.topk(me, t), t, k, p.experts() / ranks, h, true)
                    .line(
                            me,
                            dev.unicomm.collectives.MoeAlgorithm.chosen(comm).toString(),
                            comm.topology().toString()));
            MoeLayout layout = moe.layout(idx);

            Dispatched d = moe.dispatch(x, null, idx, w, layout, 1);
            String verified = "skipped";
            if (p.verify()) {
                verifyNormalDispatch(comm, p, data, d, mem, false);
                Combined c = moe.combine(d.recvX(), d.handle());
                verifyNormalCombine(comm, p, data, c, mem);
                if (fp8) verifyNormalDispatch(comm, p, data, moe.dispatch(xq, xs, idx, w, layout, 1), mem, true);
                verifyNormalDispatch(comm, p, data, moe.dispatch(x, null, d.handle()), mem, false);
                if (fp8) verifyNormalDispatch(comm, p, data, moe.dispatch(xq, xs, d.handle()), mem, true);
                verified = "ok";
            } else {
                moe.combine(d.recvX(), d.handle());
            }
            // More warm-up: the first calls run before the JIT has compiled them (the combine's Vector API
            // sums: see Warmup). GPU operations take microseconds, so there a count warms the host path.
            Runnable round = () -> {
                Dispatched di = moe.dispatch(x, null, idx, w, layout, 1);
                moe.combine(di.recvX(), di.handle());
            };
            if (mem.onDevice()) for (int i = 0; i < 300; i++) round.run();
            else Warmup.untilSteady(comm, 2, 1, 3, 15_000_000_000L, round);
            int n = d.handle().numRecvTokens();
            long bytes = (long) n * h * 2; // DeepEP: received tokens in BF16
            long[] fromRank = new long[ranks], fromRank8 = new long[ranks];
            NormalRoutes routes = NormalRoutes.of(data, me, ranks, t);
            int[] tokensIn = new int[ranks], tokensOut = routes.rows()[me];
            for (int r = 0; r < ranks; r++) {
                int tokensFrom = tokensIn[r] = routes.rows()[r][me];
                fromRank[r] = (long) tokensFrom * 2 * h;
                fromRank8[r] = (long) tokensFrom * (h + h / 32);
            }
            long[] toRank = new long[ranks]; // a combine reads back the rows of this rank's tokens
            for (int r = 0; r < ranks; r++) toRank[r] = (long) tokensOut[r] * 2 * h;
            Traffic bf16 = routes.traffic(me, 2L * h), fp8Traffic = routes.traffic(me, h + h / 32);
            // A normal combine reads at most T rows from one peer: x's size, so the bound's source is x.
            // On the host the dispatch bound pushes (see timeDispatch); a device keeps its copies and allocates no push
            // area.
            long pushBytes = routes.maxReceived() * 2 * h;
            long[] firstRow = routes.firstRow(me);
            try (MoeCopyBound copy =
                            new MoeCopyBound(comm, arena, x, mem.onDevice(), Math.max(1, bytes), 0, pushBytes);
                    AbortOnFailure failFastTimed = new AbortOnFailure(comm, "bench moe, normal mode, timed rounds")) {
                // The push bound's loop is compiled before it is timed, as the dispatch's was in the warm-up above.
                if (!mem.onDevice())
                    Warmup.untilSteady(
                            comm,
                            3,
                            1,
                            3,
                            10_000_000_000L,
                            () -> copy.timeDispatch(fromRank, routes.mine(), firstRow, 2L * h));
                long[] disp = new long[p.iters()], disp8 = new long[p.iters()], comb = new long[p.iters()];
                long[] cached = new long[p.iters()], cached8 = new long[p.iters()];
                long[] bound = new long[p.iters()], bound8 = new long[p.iters()], gather = new long[p.iters()];
                for (int it = 0; it < p.iters(); it++) {
                    comm.barrier();
                    long t0 = System.nanoTime();
                    Dispatched di = moe.dispatch(x, null, idx, w, layout, 1);
                    disp[it] = System.nanoTime() - t0;
                    if (PROFILE)
                        System.err.println(
                                "MOEPROF," + me + ",bench: normal dispatch wall," + disp[it] / 1000 + ",0,1");
                    comm.barrier();
                    t0 = System.nanoTime();
                    moe.combine(di.recvX(), di.handle());
                    comb[it] = copy.untilLastRank(t0); // a combine has no closing barrier: timed like its bound
                    if (fp8) {
                        comm.barrier();
                        t0 = System.nanoTime();
                        moe.dispatch(xq, xs, idx, w, layout, 1);
                        disp8[it] = System.nanoTime() - t0;
                        comm.barrier();
                        t0 = System.nanoTime();
                        moe.dispatch(xq, xs, d.handle());
                        cached8[it] = System.nanoTime() - t0;
                        bound8[it] = copy.timeDispatch(fromRank8, routes.mine(), firstRow, h + h / 32);
                    }
                    comm.barrier();
                    t0 = System.nanoTime();
                    moe.dispatch(x, null, d.handle());
                    cached[it] = System.nanoTime() - t0;
                    bound[it] = copy.timeDispatch(fromRank, routes.mine(), firstRow, 2L * h);
                    gather[it] = copy.timeGather(toRank, x.byteSize());
                    if (it % 2 == 1) {
                        System.gc(); // layouts and handles are GC-managed memory
                        // Untimed: the first call after a full collection found its heap shrunk and its caches cold (on
                        // a GPU the routed dispatch that came next took 400-560 us of host wall instead of 250-265).
                        round.run();
                    }
                }
                long b = median(bound);
                long bytes8 = (long) n * (h + h / 32), fp = moe.footprintBytes();
                emit("normal dispatch", me, bytes, median(disp), b, verified, fp, bf16);
                emit("normal dispatch cached", me, bytes, median(cached), b, verified, fp, bf16);
                if (fp8)
                    emit("normal dispatch fp8", me, bytes8, median(disp8), median(bound8), verified, fp, fp8Traffic);
                if (fp8)
                    emit(
                            "normal dispatch fp8 cached",
                            me,
                            bytes8,
                            median(cached8),
                            median(bound8),
                            verified,
                            fp,
                            fp8Traffic);
                emit("normal combine", me, bytes, median(comb), median(gather), verified, fp, bf16.reversed());
                if (p.inactive() > 0)
                    new MoeMaskedRounds(comm, p, data, moe, mem, x, idx, w, copy::untilLastRank).normal();
                failFastTimed.done();
            }
            failFast.done();
        }
    }

    /**
     * Bytes one operation moves for this rank: received from other ranks, sent to other ranks, and kept
     * within this rank's memory (its own share). A combine moves a dispatch's bytes the other way.
     */
    record Traffic(long remoteIn, long remoteOut, long local) {
        static Traffic of(int me, int[] rowsIn, int[] rowsOut, long rowBytes) {
            long in = 0, out = 0;
            for (int r = 0; r < rowsIn.length; r++) {
                if (r == me) continue;
                in += rowsIn[r] * rowBytes;
                out += rowsOut[r] * rowBytes;
            }
            return new Traffic(in, out, rowsIn[me] * rowBytes);
        }

        Traffic reversed() {
            return new Traffic(remoteOut, remoteIn, local);
        }
    }

    /**
     * Rows rank s sends to rank r in a normal dispatch, {@code [s][r]}, and per token of this rank the
     * ranks it goes to (r set: at least one of its experts is there; any rank count, not a 32-bit mask), from the
     * generated routing (every rank can regenerate any rank's).
     */
    record NormalRoutes(int[][] rows, java.util.BitSet[] mine) {
        static NormalRoutes of(MoeBenchData data, int me, int ranks, int tokens) {
            int k = data.topk, local = data.experts / ranks;
            int[][] rows = new int[ranks][ranks];
            java.util.BitSet[] mine = null;
            for (int s = 0; s < ranks; s++) {
                long[] ids = data.topk(s, tokens);
                java.util.BitSet[] dests = new java.util.BitSet[tokens];
                for (int t = 0; t < tokens; t++) {
                    dests[t] = new java.util.BitSet(ranks);
                    for (int j = 0; j < k; j++) if (ids[t * k + j] >= 0) dests[t].set((int) (ids[t * k + j] / local));
                    for (int r = dests[t].nextSetBit(0); r >= 0; r = dests[t].nextSetBit(r + 1)) rows[s][r]++;
                }
                if (s == me) mine = dests;
            }
            return new NormalRoutes(rows, mine);
        }

        /** Bytes of rank {@code me}'s dispatch at {@code rowBytes} a row (a combine: {@link Traffic#reversed}). */
        Traffic traffic(int me, long rowBytes) {
            int[] in = new int[rows.length];
            for (int r = 0; r < rows.length; r++) in[r] = rows[r][me];
            return Traffic.of(me, in, rows[me], rowBytes);
        }

        /** Where rank {@code me}'s rows start in rank r's receive area: after the rows of the lower ranks. */
        long[] firstRow(int me) {
            long[] first = new long[rows.length];
            for (int r = 0; r < rows.length; r++) for (int s = 0; s < me; s++) first[r] += rows[s][r];
            return first;
        }

        /** The most rows any rank receives (the same on every rank). */
        long maxReceived() {
            long most = 0;
            for (int r = 0; r < rows.length; r++) {
                long n = 0;
                for (int[] from : rows) n += from[r];
                most = Math.max(most, n);
            }
            return most;
        }
    }

    static void verifyNormalDispatch(
            Communicator comm, Params p, MoeBenchData data, Dispatched d, KitTensors mem, boolean fp8) {
        int me = comm.rank(), ranks = comm.size(), h = p.hidden(), k = p.topk();
        List<long[]> all = new ArrayList<>();
        List<TokenBatch> tiny = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            all.add(data.topk(r, p.tokens()));
            tiny.add(new TokenBatch(
                    p.tokens(), new byte[2 * p.tokens()], null, all.get(r), data.weights(r, p.tokens())));
        }
        String op = fp8 ? "normal dispatch (fp8)" : "normal dispatch";
        // Ids, weights, counts and routing from the reference at hidden 1; the rows from the generator.
        MoeReference.Dispatch ref = new MoeReference(ranks, p.experts(), 1, k).dispatch(me, tiny, 1);
        check(d.recvX().dim(0) == ref.numRecv(), op + ": " + d.recvX().dim(0) + " rows, reference " + ref.numRecv());
        boolean cached = d.recvTopkIdx() == null; // a dispatch reusing a handle returns rows only
        if (cached) op += " with a cached handle";
        check(
                cached
                        || Arrays.equals(
                                ref.recvTopkIdx(), mem.host(d.recvTopkIdx()).toArray(ValueLayout.JAVA_LONG_UNALIGNED)),
                op + ": recvTopkIdx differs from the reference");
        check(
                cached
                        || Arrays.equals(
                                ref.recvTopkWeights(),
                                mem.host(d.recvTopkWeights()).toArray(ValueLayout.JAVA_FLOAT_UNALIGNED)),
                op + ": recvTopkWeights differs from the reference");
        check(
                Arrays.equals(ref.numRecvTokensPerExpert(), d.numRecvTokensPerExpert()),
                op + ": numRecvTokensPerExpert differs from the reference");
        short[] exp = new short[h], got = new short[h];
        byte[] codes = new byte[h], gotCodes = new byte[h];
        float[] scales = new float[h / 128], gotScales = new float[h / 128];
        MemorySegment rx = mem.host(d.recvX()), rs = fp8 ? mem.host(d.recvScales()) : null;
        for (int i = 0; i < ref.numRecv(); i++) {
            data.row(ref.routing().srcRank()[i], ref.routing().srcToken()[i], exp);
            if (fp8) {
                Fp8E4m3.quantiseRow(exp, 0, h, codes, 0, scales, 0);
                MemorySegment.copy(rx, ValueLayout.JAVA_BYTE, (long) i * h, gotCodes, 0, h);
                MemorySegment.copy(
                        rs, ValueLayout.JAVA_FLOAT_UNALIGNED, (long) i * (h / 128) * 4, gotScales, 0, h / 128);
                check(
                        Arrays.equals(codes, gotCodes) && Arrays.equals(scales, gotScales),
                        op + ": row " + i + " differs from the reference");
            } else {
                MemorySegment.copy(rx, ValueLayout.JAVA_SHORT_UNALIGNED, (long) i * 2 * h, got, 0, h);
                check(Arrays.equals(exp, got), op + ": recvX row " + i + " differs from the reference (not bit-exact)");
            }
        }
    }

    static void verifyNormalCombine(Communicator comm, Params p, MoeBenchData data, Combined c, KitTensors mem) {
        int me = comm.rank(), ranks = comm.size(), h = p.hidden();
        MoeReference ref = new MoeReference(ranks, p.experts(), h, p.topk());
        List<long[]> all = new ArrayList<>();
        for (int r = 0; r < ranks; r++) all.add(data.topk(r, p.tokens()));
        MoeReference.Routing[] routes = new MoeReference.Routing[ranks];
        for (int r = 0; r < ranks; r++) routes[r] = ref.route(r, all);
        short[] expected = ref.combine(
                        me,
                        all,
                        (r, i, dst) ->
                                data.row(routes[r].srcRank()[i], routes[r].srcToken()[i], dst),
                        null)
                .x();
        withinUlp("normal combine", expected, c.x(), mem);
    }

    // ------------------------------------------------------------------------------- low latency

    static void lowLatency(Communicator comm, Params p) {
        int me = comm.rank(), ranks = comm.size(), h = p.hidden(), k = p.topk(), t = p.llTokens();
        boolean fp8 = h % 128 == 0;
        MoeConfig cfg = new MoeConfig(MoeConfig.Mode.LOW_LATENCY, p.experts(), h, t, k, fp8);
        MoeBenchData data = new MoeBenchData(p.seed() + 1, p.experts(), h, k);
        try (Arena arena = Arena.ofShared();
                KitTensors mem = new KitTensors(comm);
                MoeMaskedRounds.Held held = MoeMaskedRounds.open(comm, cfg, p.inactive());
                AbortOnFailure failFast = new AbortOnFailure(comm, "bench moe, low-latency mode")) {
            MoeBuffer moe = held.moe();
            Tensor xh = lowLatencyTokens(arena, data, me, t, h), x = mem.place(xh);
            Routing routing = Routing.of(arena, mem, data, me, t);
            long[] ids = routing.ids();
            float[] wArr = routing.weights();
            Tensor idx = routing.idx(), w = routing.w();

            String verified = "skipped";
            if (p.verify()) {
                LowLatencyDispatched d = moe.lowLatencyDispatch(x, idx, false, false);
                verifyLowLatencyDispatch(comm, p, data, d, false, mem);
                LowLatencyCombined c = moe.lowLatencyCombine(d.recvX(), idx, w, d.handle(), false);
                verifyLowLatencyCombine(comm, p, data, wArr, c.x(), mem);
                if (fp8)
                    verifyLowLatencyDispatch(comm, p, data, moe.lowLatencyDispatch(x, idx, true, false), true, mem);
                verified = "ok";
            }
            // Warm-up until the JIT has compiled the host path with its Vector API intrinsics (see Warmup).
            Runnable round = () -> {
                LowLatencyDispatched d = moe.lowLatencyDispatch(x, idx, false, false);
                moe.lowLatencyCombine(d.recvX(), idx, w, d.handle(), false);
                if (fp8) moe.lowLatencyDispatch(x, idx, true, false);
            };
            if (mem.onDevice()) for (int i = 0; i < 2000; i++) round.run(); // microseconds each: a count suffices
            else Warmup.untilSteady(comm, 50, 8, 24, 20_000_000_000L, round);
            long pairs = Arrays.stream(ids).filter(e -> e >= 0).count();
            long recvPairs = 0;
            long fp8Row = (long) h + h / 32 + 16; // DeepEP's count per pair: codes, scales, 16 bytes of metadata
            long[] fromRank = new long[ranks], fromRank8 = new long[ranks];
            List<long[]> all = new ArrayList<>();
            for (int r = 0; r < ranks; r++) all.add(data.topk(r, t));
            int local = p.experts() / ranks;
            int[][] perPair = lowLatencyPairs(data, me, ranks, p.experts(), t);
            int[] pairsOut = perPair[1];
            for (int r = 0; r < ranks; r++) {
                fromRank[r] = perPair[0][r] * 2L * h;
                fromRank8[r] = perPair[0][r] * fp8Row;
                recvPairs += perPair[0][r];
            }
            long[] toRank = new long[ranks]; // a combine reads back one row per (own token, expert)
            for (int r = 0; r < ranks; r++) toRank[r] = pairsOut[r] * 2L * h;
            Traffic bf16 = Traffic.of(me, perPair[0], pairsOut, 2L * h),
                    fp8Traffic = Traffic.of(me, perPair[0], pairsOut, fp8Row);
            long gatherBytes = 0; // the most rows any rank's combine reads from one peer (every rank computes the same)
            for (int r = 0; r < ranks; r++) {
                long[] perPeer = new long[ranks];
                for (long e : all.get(r)) if (e >= 0) perPeer[(int) (e / local)] += 2L * h;
                for (long b : perPeer) gatherBytes = Math.max(gatherBytes, b);
            }
            try (MoeCopyBound copy = new MoeCopyBound(
                            comm, arena, x, mem.onDevice(), Math.max(1, recvPairs * 2 * h), gatherBytes, 0);
                    AbortOnFailure failFastTimed =
                            new AbortOnFailure(comm, "bench moe, low-latency mode, timed rounds")) {
                int n = p.llIters();
                long[] disp = new long[n],
                        comb = new long[n],
                        disp8 = new long[n],
                        bound = new long[n],
                        bound8 = new long[n],
                        gather = new long[n];
                long[] send8 = new long
                        [n]; // FP8 dispatch: until the call returns (sends issued), the rest is the receive hook
                // Host only: this project's CPU quantiser on the same tokens, alone, every rank at once (what an FP8
                // dispatch
                // from BF16 input does besides moving bytes; the FP8 bound leaves it out).
                boolean quantHost = fp8 && !mem.onDevice();
                long[] quant = new long[n];
                MemorySegment qCodes = quantHost ? arena.allocate((long) t * h, 64) : null,
                        qScales = quantHost ? arena.allocate((long) t * h / 32, 64) : null;
                for (int it = 0; it < n; it++) {
                    comm.barrier();
                    long t0 = System.nanoTime();
                    LowLatencyDispatched d = moe.lowLatencyDispatch(x, idx, false);
                    d.hook().await();
                    disp[it] = System.nanoTime() - t0;
                    comm.barrier();
                    t0 = System.nanoTime();
                    LowLatencyCombined c = moe.lowLatencyCombine(d.recvX(), idx, w, d.handle());
                    c.hook().await();
                    comb[it] = copy.untilLastRank(t0);
                    if (fp8) {
                        comm.barrier();
                        t0 = System.nanoTime();
                        LowLatencyDispatched d8 = moe.lowLatencyDispatch(x, idx, true);
                        send8[it] = System.nanoTime() - t0;
                        d8.hook().await();
                        disp8[it] = System.nanoTime() - t0;
                    }
                    bound[it] = copy.time(fromRank);
                    bound8[it] = copy.time(fromRank8);
                    if (quantHost) {
                        comm.barrier();
                        long q0 = System.nanoTime();
                        Fp8Quantiser.quantise(xh.segment(), 0, t, h, qCodes, 0, qScales, 0);
                        quant[it] = copy.untilLastRank(q0);
                    }
                    gather[it] = copy.timeGather(toRank, x.byteSize());
                }
                long b = median(bound);
                long bf16Bytes = pairs * 2L * h;
                long fp = moe.footprintBytes();
                emit("ll dispatch bf16", me, bf16Bytes, median(disp), b, verified, fp, bf16);
                if (fp8)
                    emit(
                            "ll dispatch fp8",
                            me,
                            pairs * fp8Row,
                            median(disp8),
                            median(bound8),
                            verified,
                            fp,
                            fp8Traffic);
                if (fp8)
                    System.out.println(String.format(
                            Locale.ROOT,
                            "MOESPLIT,ll dispatch fp8,%d,%d,%d",
                            me,
                            median(send8),
                            median(disp8) - median(send8)));
                if (quantHost)
                    System.out.println(String.format(
                            Locale.ROOT, "MOEQUANT,ll dispatch fp8,%d,%d,%d", me, median(quant), median(bound8)));
                emit("ll combine", me, bf16Bytes, median(comb), median(gather), verified, fp, bf16.reversed());
                if (p.inactive() > 0)
                    new MoeMaskedRounds(comm, p, data, moe, mem, x, idx, w, copy::untilLastRank).lowLatency(wArr);
                failFastTimed.done();
            }
            failFast.done();
        }
    }

    /**
     * Low-latency (token, expert) pairs of rank {@code me}: {@code [0][r]} received from rank r, {@code [1][r]} sent to
     * rank r (a combine moves them back).
     */
    static int[][] lowLatencyPairs(MoeBenchData data, int me, int ranks, int experts, int tokens) {
        int local = experts / ranks;
        int[][] pairs = new int[2][ranks];
        for (int r = 0; r < ranks; r++)
            for (long e : data.topk(r, tokens)) {
                if (e >= 0 && e / local == me) pairs[0][r]++;
                if (e >= 0 && r == me) pairs[1][(int) (e / local)]++;
            }
        return pairs;
    }

    /** This rank's low-latency tokens {@code [t, h]} BF16, in host memory. */
    static Tensor lowLatencyTokens(Arena arena, MoeBenchData data, int me, int t, int h) {
        Tensor xh = Tensor.allocate(arena, DType.BF16, t, h);
        short[] row = new short[h];
        for (int i = 0; i < t; i++) {
            data.row(me, i, row);
            MemorySegment.copy(row, 0, xh.segment(), ValueLayout.JAVA_SHORT_UNALIGNED, (long) i * 2 * h, h);
        }
        return xh;
    }

    static void verifyLowLatencyDispatch(
            Communicator comm, Params p, MoeBenchData data, LowLatencyDispatched d, boolean fp8, KitTensors mem) {
        int me = comm.rank(), ranks = comm.size(), h = p.hidden();
        List<long[]> all = new ArrayList<>();
        for (int r = 0; r < ranks; r++) all.add(data.topk(r, p.llTokens()));
        MoeReference.LowLatencyRouting ref =
                new MoeReference(ranks, p.experts(), h, p.topk()).lowLatencyRouting(me, all, p.llTokens());
        String op = "low-latency dispatch (" + (fp8 ? "fp8" : "bf16") + ")";
        check(Arrays.equals(ref.recvCount(), d.recvCount()), op + ": recvCount differs from the reference");
        short[] src = new short[h], got = new short[h];
        byte[] codes = new byte[h], gotCodes = new byte[h];
        float[] scales = new float[h / 128], gotScales = new float[h / 128];
        MemorySegment rx = mem.host(d.recvX()), rs = fp8 ? mem.host(d.recvScales()) : null;
        for (int e = 0; e < ref.recvCount().length; e++) {
            for (int i = 0; i < ref.recvCount()[e]; i++) {
                int slot = e * ref.slotsPerExpert() + i;
                data.row(ref.srcRank()[slot], ref.srcToken()[slot], src);
                if (fp8) {
                    Fp8E4m3.quantiseRow(src, 0, h, codes, 0, scales, 0);
                    MemorySegment.copy(rx, ValueLayout.JAVA_BYTE, (long) slot * h, gotCodes, 0, h);
                    MemorySegment.copy(
                            rs, ValueLayout.JAVA_FLOAT_UNALIGNED, (long) slot * (h / 128) * 4, gotScales, 0, h / 128);
                    check(
                            Arrays.equals(codes, gotCodes) && Arrays.equals(scales, gotScales),
                            op + ": expert " + e + " slot " + i + " differs from the reference quantiser");
                } else {
                    MemorySegment.copy(rx, ValueLayout.JAVA_SHORT_UNALIGNED, (long) slot * 2 * h, got, 0, h);
                    check(
                            Arrays.equals(src, got),
                            op + ": expert " + e + " slot " + i + " differs from the reference (not bit-exact)");
                }
            }
        }
    }

    static void verifyLowLatencyCombine(
            Communicator comm, Params p, MoeBenchData data, float[] weights, Tensor combined, KitTensors mem) {
        int me = comm.rank(), ranks = comm.size(), h = p.hidden();
        MoeReference ref = new MoeReference(ranks, p.experts(), h, p.topk());
        List<long[]> all = new ArrayList<>();
        for (int r = 0; r < ranks; r++) all.add(data.topk(r, p.llTokens()));
        MoeReference.LowLatencyRouting[] routes = new MoeReference.LowLatencyRouting[ranks];
        for (int r = 0; r < ranks; r++) routes[r] = ref.lowLatencyRouting(r, all, p.llTokens());
        short[] expected = ref.lowLatencyCombine(me, all, weights, p.llTokens(), (r, e, slot, dst) -> {
            int at = e * routes[r].slotsPerExpert() + slot;
            data.row(routes[r].srcRank()[at], routes[r].srcToken()[at], dst);
        });
        withinUlp("low-latency combine", expected, combined, mem);
    }

    // ---------------------------------------------------------------------------------- helpers

    private static void withinUlp(String what, short[] expected, Tensor actual, KitTensors mem) {
        short[] got = new short[(int) actual.numel()];
        MemorySegment.copy(mem.host(actual), ValueLayout.JAVA_SHORT_UNALIGNED, 0, got, 0, got.length);
        check(got.length == expected.length, what + ": " + got.length + " values, reference " + expected.length);
        for (int i = 0; i < got.length; i++)
            check(
                    Bf16.ulpDistance(expected[i], got[i]) <= 1,
                    what + ": element " + i + " is " + Bf16.toFloat(got[i]) + ", reference " + Bf16.toFloat(expected[i])
                            + " (more than 1 bf16 ulp)");
    }

    private static void check(boolean ok, String message) {
        if (!ok) throw new IllegalStateException("verification against the reference failed: " + message);
    }

    static long median(long[] v) {
        long[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }

    static void emit(
            String op, int rank, long bytes, long ns, long boundNs, String verified, long footprint, Traffic traffic) {
        System.out.println(String.format(
                Locale.ROOT,
                "MOE,%s,%d,%d,%d,%d,%s,%d,%d,%d,%d",
                op,
                rank,
                bytes,
                ns,
                boundNs,
                verified,
                footprint,
                traffic.remoteIn(),
                traffic.remoteOut(),
                traffic.local()));
    }
}
