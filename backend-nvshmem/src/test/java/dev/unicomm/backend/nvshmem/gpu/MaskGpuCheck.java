package dev.unicomm.backend.nvshmem.gpu;

import dev.unicomm.api.Combined;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.DeviceBuffer;
import dev.unicomm.api.DeviceRuntime;
import dev.unicomm.api.Dispatched;
import dev.unicomm.api.ExpertMask;
import dev.unicomm.api.LowLatencyCombined;
import dev.unicomm.api.LowLatencyDispatched;
import dev.unicomm.api.LowLatencyDispatchedOnStream;
import dev.unicomm.api.Memory;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.MoeLayout;
import dev.unicomm.api.Stream;
import dev.unicomm.api.Tensor;
import dev.unicomm.backend.nvshmem.internal.NvOps;
import dev.unicomm.moe.reference.Bf16;
import dev.unicomm.moe.reference.MoeReference;
import dev.unicomm.moe.reference.TokenBatch;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * One PE of the GPU check of the active-rank mask (issue 50; started by {@code scripts/gpu-run.sh mask}).
 * All PEs first run with every rank active: a CUDA graph of the stream-ordered low-latency dispatch +
 * combine is captured and replayed (checked against the host-sequenced operations), and normal and
 * low-latency calls are timed. Then the last rank leaves: the others set a mask without it on every
 * buffer ({@link MoeBuffer#setActiveRanks}) and the inactive PE calls nothing more until the final
 * barrier. The survivors check normal BF16 dispatch/combine, the layout and low-latency
 * dispatch/combine against the kit's reference ({@link MoeReference}) fed the same drops (entries
 * naming the inactive rank's experts replaced by -1, the inactive rank sending nothing), compare
 * {@code droppedPerToken}, replay the graph captured before the change (the mask is data the
 * kernels read), and time the same calls again. Prints PASS/FAIL lines, {@code MASK,...} timing rows
 * and a RESULT line; exit status = failed checks. Buffers are not closed (an inactive PE takes no part
 * in a collective free): the process ends after the final barrier.
 *
 * <p>With an argument, a failure inside a loop (elastic buffers, {@code unicomm.nvshmem.moe.elastic=true}):
 * {@code kill-ll} (the last rank SIGKILLs itself after a low-latency dispatch, before its combine), {@code leave-ll}
 * (the same rank stays alive but calls no combine),
 * {@code kill-mid-ll} (inside a low-latency dispatch, after sending its counts), {@code kill-normal} (before a normal
 * dispatch), {@code stop-ll} and {@code stop-normal} (SIGSTOPs itself before a
 * low-latency or a normal dispatch; a watcher SIGKILLs it once the survivors are done). The survivors' call that finds it gone
 * must return within twice the timeout and match the reference with its entries dropped; then
 * {@link #AFTER} more calls are verified and {@code MASK} rows time the survivors' calls
 * (compare with the all-active rows of a job of as many PEs). {@code DETECT} lines give the times.
 */
public final class MaskGpuCheck {
    private static final int LOCAL = 8, HIDDEN = 2048, TOKENS = 64, TOPK = 8, ROUNDS = 3;
    private static final int TIMED = Integer.getInteger("mask.timed", 200), AFTER = 100, FAIL_AT = 10;

    private final Communicator comm;
    private final DeviceRuntime dev;
    private final Arena arena = Arena.ofShared();
    private final int me, n, experts;
    private final MoeReference ref;
    private int failed;

    private MaskGpuCheck(Communicator comm) {
        this.comm = comm;
        this.dev = comm.device();
        this.me = comm.rank();
        this.n = comm.size();
        this.experts = LOCAL * n;
        this.ref = new MoeReference(n, experts, HIDDEN, TOPK);
    }

    public static void main(String[] args) {
        int failed;
        try {
            String mode = args.length > 0 ? args[0] : "fixed";
            Communicator comm = GpuCheck.connect(
                    System.getenv(),
                    1L << 30,
                    mode.equals("fixed")
                            ? java.util.Map.of()
                            : java.util.Map.of("unicomm.nvshmem.moe.elastic", "true"));
            MaskGpuCheck check = new MaskGpuCheck(comm);
            if (mode.equals("fixed")) check.run();
            else check.failure(mode);
            failed = check.failed;
        } catch (Throwable t) {
            failed = 1;
            System.out.println("FAIL mask check: " + t);
            t.printStackTrace(System.out);
        }
        System.out.println("RESULT rank " + System.getenv("UNICOMM_RANK") + ": "
                + (failed == 0 ? "all checks passed" : failed + " failed"));
        System.out.flush();
        Runtime.getRuntime().halt(Math.min(failed, 100));
    }

    private void run() throws Exception {
        int inactive = n - 1;
        ExpertMask all = ExpertMask.all(n),
                without =
                        new ExpertMask(
                                n, java.util.stream.IntStream.range(0, n - 1).toArray());
        MoeConfig normalCfg = new MoeConfig(MoeConfig.Mode.NORMAL, experts, HIDDEN, TOKENS, TOPK, false);
        MoeConfig llCfg = new MoeConfig(MoeConfig.Mode.LOW_LATENCY, experts, HIDDEN, TOKENS, TOPK, false);
        MoeBuffer normal = comm.moe(normalCfg), ll = comm.moe(llCfg), graphed = comm.moe(llCfg);
        check(normal.activeRanks().equals(all), "a new buffer has every rank active: " + normal.activeRanks());
        Stream s = dev.createStream();
        DeviceBuffer xd = dev.allocate(2L * TOKENS * HIDDEN),
                idxd = dev.allocate(8L * TOKENS * TOPK),
                wd = dev.allocate(4L * TOKENS * TOPK);
        long[] idx = topk(me);
        float[] w = weights(me);
        copyIn(idxd, MemorySegment.ofArray(idx));
        copyIn(wd, MemorySegment.ofArray(w));
        Tensor x = Tensor.of(xd, DType.BF16, TOKENS, HIDDEN),
                idxDev = Tensor.of(idxd, DType.INT64, TOKENS, TOPK),
                wDev = Tensor.of(wd, DType.FP32, TOKENS, TOPK);
        Tensor idxHost = host(DType.INT64, MemorySegment.ofArray(idx), TOKENS, TOPK),
                wHost = host(DType.FP32, MemorySegment.ofArray(w), TOKENS, TOPK);

        NvOps.graphBegin(s.handle());
        LowLatencyDispatchedOnStream gd = graphed.lowLatencyDispatch(s, x, idxDev, false);
        Tensor gout = graphed.lowLatencyCombine(s, gd.recvX(), idxDev, wDev, gd.handle());
        long graph = NvOps.graphEnd(s.handle());

        // Every rank active: the graph against the host-sequenced calls, then the timing baseline.
        for (int round = 0; round < 2; round++) {
            fillX(xd, me, round);
            graphAgainstHost(ll, x, idxHost, wHost, graph, s, gout, "all active, replay " + round);
            comm.barrier();
        }
        time("all " + n + " active", normal, ll, x, idxHost, wHost);
        comm.barrier();

        if (me == inactive) { // leaves: calls nothing on the buffers (nor a barrier, whose timeout would end it) until
            // the survivors are done
            System.out.println("INFO [rank " + me + "] inactive from now on; waiting for the survivors");
            fileBarrier("fixed-done", n - 1);
            return;
        }
        for (MoeBuffer b : List.of(normal, ll, graphed)) b.setActiveRanks(without);
        check(normal.activeRanks().equals(without), "activeRanks() reads back the mask: " + normal.activeRanks());
        for (int round = 0; round < ROUNDS; round++) {
            fillX(xd, me, 10 + round);
            checkNormal(normal, x, idxHost, wHost, without, 10 + round);
            checkLowLatency(ll, x, idxHost, wHost, without, 10 + round);
            graphAgainstHost(
                    ll,
                    x,
                    idxHost,
                    wHost,
                    graph,
                    s,
                    gout,
                    "rank " + inactive + " inactive, replay " + round + " of the graph captured before");
        }
        time((n - 1) + " of " + n + " active (rank " + inactive + " inactive)", normal, ll, x, idxHost, wHost);
        NvOps.graphDestroy(graph);
        fileBarrier(
                "fixed-done",
                n - 1); // the survivors are done with each other's memory; the inactive PE waits for this too
    }

    /**
     * Waits until ranks 0..survivors-1 have all arrived (files in the job's file store; bounded by 5 minutes).
     * Not the communicator's barrier: it includes the inactive or dead rank, and its timeout would end a rank
     * that waits longer than the job's timeout.
     */
    private void fileBarrier(String name, int survivors) throws java.io.IOException, InterruptedException {
        java.nio.file.Path dir = java.nio.file.Path.of(System.getenv("UNICOMM_FILE_STORE"));
        if (me < survivors) java.nio.file.Files.writeString(dir.resolve(name + "-" + me), "done");
        long until = System.nanoTime() + 300_000_000_000L;
        for (int r = 0; r < survivors; r++)
            while (!java.nio.file.Files.exists(dir.resolve(name + "-" + r))) {
                if (System.nanoTime() > until)
                    throw new IllegalStateException("rank " + r + " did not reach " + name + " within 5 minutes");
                Thread.sleep(50);
            }
    }

    // ------------------------------------------------------------------------------- a rank failing

    private void failure(String mode) throws Exception {
        if (!List.of("kill-ll", "kill-mid-ll", "leave-ll", "kill-normal", "stop-ll", "stop-normal")
                .contains(mode))
            throw new IllegalArgumentException("mode must be kill-ll, kill-mid-ll, leave-ll, kill-normal, stop-ll or"
                    + " stop-normal, got '" + mode + "'");
        boolean lowLatency = mode.endsWith("-ll"), stop = mode.startsWith("stop-");
        int victim = n - 1;
        ExpertMask without =
                new ExpertMask(n, java.util.stream.IntStream.range(0, n - 1).toArray());
        MoeBuffer moe = comm.moe(new MoeConfig(
                lowLatency ? MoeConfig.Mode.LOW_LATENCY : MoeConfig.Mode.NORMAL, experts, HIDDEN, TOKENS, TOPK, false));
        DeviceBuffer xd = dev.allocate(2L * TOKENS * HIDDEN);
        Tensor x = Tensor.of(xd, DType.BF16, TOKENS, HIDDEN);
        long[] idx = topk(me);
        Tensor idxHost = host(DType.INT64, MemorySegment.ofArray(idx), TOKENS, TOPK),
                wHost = host(DType.FP32, MemorySegment.ofArray(weights(me)), TOKENS, TOPK);
        long timeoutMs = Long.parseLong(System.getenv().getOrDefault("UNICOMM_TIMEOUT_S", "60")) * 1000;
        fillX(xd, me, 0);
        for (int i = 0; i < FAIL_AT; i++) { // every rank active
            if (lowLatency) {
                LowLatencyDispatched d = moe.lowLatencyDispatch(x, idxHost, false, false);
                moe.lowLatencyCombine(d.recvX(), idxHost, wHost, d.handle(), false);
            } else {
                Dispatched d = moe.dispatch(x, idxHost, wHost, moe.layout(idxHost));
                moe.combine(d.recvX(), d.handle(), d.recvTopkWeights());
            }
        }
        fillX(xd, me, 1);
        long t0, ms;
        if (lowLatency && !stop) {
            boolean mid = mode.equals("kill-mid-ll");
            if (mid) dieInsideDispatchOrWait(moe, x, idxHost, victim);
            long dispatched = System.nanoTime();
            LowLatencyDispatched d = moe.lowLatencyDispatch(x, idxHost, false, false);
            if (me == victim && mode.equals("leave-ll")) {
                leaveUntilSurvivorsDone();
                return;
            }
            if (me == victim) signalSelf("KILL");
            // kill-mid-ll: the dispatch is the call that finds the victim gone, so it is timed too.
            t0 = mid ? dispatched : System.nanoTime();
            LowLatencyCombined c = moe.lowLatencyCombine(d.recvX(), idxHost, wHost, d.handle(), false);
            ms = (System.nanoTime() - t0) / 1_000_000;
            // The dispatch ran with every rank (the victim's tokens sit in the survivors' slots); the combine sums live
            // experts only.
            List<TokenBatch> all = inputs(ExpertMask.all(n), 1);
            List<long[]> topk =
                    new ArrayList<>(all.stream().map(TokenBatch::topkIdx).toList());
            topk.set(me, masked(topk(me), without));
            List<MoeReference.LowLatencyDispatch> every = new ArrayList<>();
            for (int r = 0; r < n; r++) every.add(ref.lowLatencyDispatch(r, all, TOKENS, false));
            int slots = every.get(0).slotsPerExpert();
            short[] want = ref.lowLatencyCombine(
                    me,
                    topk,
                    weights(me),
                    TOKENS,
                    (r, local, slot, dst) -> MoeReference.bytesToBf16(
                            every.get(r).recvX(), (local * slots + slot) * 2 * HIDDEN, dst, HIDDEN));
            checkBf16(
                    shorts(c.x()), want, "the combine that found rank " + victim + " gone sums the live experts only");
        } else {
            if (me == victim) {
                if (stop) watchAndKillLater();
                signalSelf(stop ? "STOP" : "KILL");
            }
            t0 = System.nanoTime();
            if (lowLatency) checkLowLatency(moe, x, idxHost, wHost, without, 1);
            else checkNormal(moe, x, idxHost, wHost, without, 1, false);
            ms = (System.nanoTime() - t0) / 1_000_000;
        }
        System.out.println(
                String.format(Locale.ROOT, "DETECT,%d,%s,%d PEs,call_ms=%d,timeout_ms=%d", me, mode, n, ms, timeoutMs));
        check(
                ms <= 2 * timeoutMs,
                mode + ": the call that found rank " + victim + " gone returned in " + ms + " ms (<= 2 x " + timeoutMs
                        + " ms)");
        check(moe.activeRanks().equals(without), mode + ": activeRanks() names the survivors: " + moe.activeRanks());
        int bad = failed;
        for (int i = 0; i < AFTER; i++) {
            fillX(xd, me, 100 + i);
            if (lowLatency) checkLowLatency(moe, x, idxHost, wHost, without, 100 + i);
            else checkNormal(moe, x, idxHost, wHost, without, 100 + i);
        }
        System.out.println("INFO [rank " + me + "] " + AFTER + " calls after the failure verified, " + (failed - bad)
                + " checks failed");
        time(
                (n - 1) + " survivors after " + mode + " (" + n + " PEs)",
                lowLatency ? null : moe,
                lowLatency ? moe : null,
                x,
                idxHost,
                wHost);
        fileBarrier("survivors", n - 1); // nobody leaves while a peer may still read its memory
        if (me == 0)
            java.nio.file.Files.writeString(
                    java.nio.file.Path.of(System.getenv("UNICOMM_FILE_STORE"), "survivors-done"), "done");
    }

    /**
     * kill-mid-ll: the victim dies inside a low-latency dispatch after sending its counts. It starts the dispatch at
     * once and is SIGKILLed 100 ms later while its kernel waits for the survivors' counts; the survivors start theirs
     * 300 ms late, so every one of them gets the victim's counts (its slots are numbered, its rows never come) and
     * finds it gone in the arrival wait. Their combine must then sum the live experts only, as in kill-ll.
     */
    private void dieInsideDispatchOrWait(MoeBuffer moe, Tensor x, Tensor idx, int victim) throws Exception {
        if (me != victim) {
            Thread.sleep(300);
            return;
        }
        Thread killer = new Thread(() -> {
            try {
                Thread.sleep(100);
                signalSelf("KILL");
            } catch (Exception e) {
                Runtime.getRuntime().halt(9);
            }
        });
        killer.setDaemon(true);
        killer.start();
        moe.lowLatencyDispatch(x, idx, false, false); // its kernel waits for the survivors' counts until the kill
        Thread.sleep(60_000);
        Runtime.getRuntime().halt(9); // not reached: the kill came first
    }

    /** Ids of rank r with every entry naming an inactive rank's expert replaced by -1. */
    private static long[] masked(long[] ids, ExpertMask mask) {
        long[] out = ids.clone();
        for (int i = 0; i < out.length; i++) if (out[i] >= 0 && !mask.rankActive((int) (out[i] / LOCAL))) out[i] = -1;
        return out;
    }

    private static void signalSelf(String sig) throws Exception {
        System.out.println("KILL " + System.currentTimeMillis() + " SIG" + sig);
        System.out.flush();
        new ProcessBuilder(
                        "kill", "-" + sig, Long.toString(ProcessHandle.current().pid()))
                .inheritIO()
                .start()
                .waitFor();
    }

    /**
     * leave-ll: the last rank stays alive but calls nothing more (no combine), until the survivors are done (at most
     * 5 minutes): a rank that is gone from the MoE without a process dying (which tells a GPU-side stall after a
     * SIGKILL apart from the kernels' own waits).
     */
    private static void leaveUntilSurvivorsDone() throws InterruptedException {
        java.nio.file.Path done = java.nio.file.Path.of(System.getenv("UNICOMM_FILE_STORE"), "survivors-done");
        for (int i = 0; i < 1500 && !java.nio.file.Files.exists(done); i++) Thread.sleep(200);
        System.out.println("INFO [rank " + ProcessHandle.current().pid()
                + "] left the MoE after its dispatch; survivors done: " + java.nio.file.Files.exists(done));
    }

    /** A stopped PE is SIGKILLed once the survivors are done (or after 5 minutes), so the job ends. */
    private static void watchAndKillLater() throws Exception {
        String done = System.getenv("UNICOMM_FILE_STORE") + "/survivors-done";
        long pid = ProcessHandle.current().pid();
        new ProcessBuilder(
                        "sh",
                        "-c",
                        "for i in $(seq 1 1500); do [ -e '" + done + "' ] && break; sleep 0.2; done; kill -KILL " + pid)
                .redirectErrorStream(true)
                .start();
    }

    // ------------------------------------------------------------------------------- the checks

    private void checkNormal(MoeBuffer moe, Tensor x, Tensor idx, Tensor w, ExpertMask mask, int v) {
        checkNormal(moe, x, idx, w, mask, v, true);
    }

    /** {@code checkLayout} false: the layout (local, no waits) is computed before this call's dispatch finds a rank gone. */
    private void checkNormal(
            MoeBuffer moe, Tensor x, Tensor idx, Tensor w, ExpertMask mask, int v, boolean checkLayout) {
        List<TokenBatch> inputs = inputs(mask, v);
        List<long[]> topk = inputs.stream().map(TokenBatch::topkIdx).toList();
        MoeLayout layout = moe.layout(idx);
        MoeReference.Layout rl = ref.layout(topk.get(me));
        if (checkLayout)
            check(
                    Arrays.equals(ints(layout.tokensPerRank()), rl.tokensPerRank())
                            && Arrays.equals(ints(layout.tokensPerExpert()), rl.tokensPerExpert()),
                    "layout: tokens per rank and expert as the reference's with the drops (inactive rank 0)");
        Dispatched d = moe.dispatch(x, idx, w, layout);
        check(
                Arrays.equals(d.droppedPerToken(), dropped(topk(me), mask)),
                "normal dispatch: droppedPerToken " + Arrays.toString(d.droppedPerToken()) + " is the reference's");
        MoeReference.Dispatch rd = ref.dispatch(me, inputs, 1);
        int rows = (int) d.recvX().dim(0);
        check(
                rows == rd.numRecv() && Arrays.equals(d.numRecvTokensPerExpert(), rd.numRecvTokensPerExpert()),
                "normal dispatch: " + rows + " rows received (reference " + rd.numRecv() + "), per-expert counts");
        check(
                rows == rd.numRecv() && Arrays.equals(bytes(d.recvX()), rd.recvX()),
                "normal dispatch: every received row bit-exact (round " + v + ")");
        check(
                rows == rd.numRecv()
                        && Arrays.equals(longs(d.recvTopkIdx()), rd.recvTopkIdx())
                        && Arrays.equals(floats(d.recvTopkWeights()), rd.recvTopkWeights()),
                "normal dispatch: received local ids and weights");
        Combined c = moe.combine(d.recvX(), d.handle(), d.recvTopkWeights());
        // Each rank sends its received rows back (y = recvX): the reference's rows of every rank's dispatch.
        List<MoeReference.Dispatch> every = new ArrayList<>();
        for (int r = 0; r < n; r++) every.add(mask.rankActive(r) ? ref.dispatch(r, inputs, 1) : null);
        MoeReference.Combined rc = ref.combine(
                me,
                topk,
                (r, row, dst) -> MoeReference.bytesToBf16(every.get(r).recvX(), row * 2 * HIDDEN, dst, HIDDEN),
                (r, row) -> Arrays.copyOfRange(every.get(r).recvTopkWeights(), row * TOPK, (row + 1) * TOPK));
        checkBf16(
                shorts(c.x()), rc.x(), "normal combine: every own token's sum of live contributions (round " + v + ")");
    }

    private void checkLowLatency(MoeBuffer moe, Tensor x, Tensor idx, Tensor w, ExpertMask mask, int v) {
        List<TokenBatch> inputs = inputs(mask, v);
        List<long[]> topk = inputs.stream().map(TokenBatch::topkIdx).toList();
        LowLatencyDispatched d = moe.lowLatencyDispatch(x, idx, false, false);
        check(
                Arrays.equals(d.droppedPerToken(), dropped(topk(me), mask)),
                "low-latency dispatch: droppedPerToken is the reference's");
        MoeReference.LowLatencyDispatch rd = ref.lowLatencyDispatch(me, inputs, TOKENS, false);
        check(
                Arrays.equals(d.recvCount(), rd.recvCount()),
                "low-latency dispatch: recvCount " + Arrays.toString(d.recvCount()) + " is the reference's "
                        + Arrays.toString(rd.recvCount()));
        byte[] got = bytes(d.recvX());
        boolean rowsOk = true;
        int slots = rd.slotsPerExpert(), rowBytes = 2 * HIDDEN;
        for (int e = 0; e < LOCAL; e++)
            for (int slot = 0; slot < Math.min(rd.recvCount()[e], d.recvCount()[e]); slot++) {
                int at = (e * slots + slot) * rowBytes;
                rowsOk &= Arrays.equals(got, at, at + rowBytes, rd.recvX(), at, at + rowBytes);
            }
        check(rowsOk, "low-latency dispatch: every valid slot bit-exact (round " + v + ")");
        LowLatencyCombined c = moe.lowLatencyCombine(d.recvX(), idx, w, d.handle(), false);
        List<MoeReference.LowLatencyDispatch> every = new ArrayList<>();
        for (int r = 0; r < n; r++)
            every.add(mask.rankActive(r) ? ref.lowLatencyDispatch(r, inputs, TOKENS, false) : null);
        short[] rc = ref.lowLatencyCombine(
                me,
                topk,
                weights(me),
                TOKENS,
                (r, local, slot, dst) ->
                        MoeReference.bytesToBf16(every.get(r).recvX(), (local * slots + slot) * rowBytes, dst, HIDDEN));
        checkBf16(shorts(c.x()), rc, "low-latency combine: weighted sum of live contributions (round " + v + ")");
    }

    /** The captured graph's counts and output equal the host-sequenced calls on the other buffer (same kernels, same bits). */
    private void graphAgainstHost(
            MoeBuffer ll, Tensor x, Tensor idx, Tensor w, long graph, Stream s, Tensor gout, String what) {
        LowLatencyDispatched d = ll.lowLatencyDispatch(x, idx, false, false);
        LowLatencyCombined c = ll.lowLatencyCombine(d.recvX(), idx, w, d.handle(), false);
        byte[] expected = bytes(c.x());
        NvOps.graphLaunch(graph, s.handle());
        s.synchronize();
        check(
                Arrays.equals(expected, bytes(gout)),
                "CUDA graph (" + what + "): combined output equals the host-sequenced calls'");
    }

    private void time(String what, MoeBuffer normal, MoeBuffer ll, Tensor x, Tensor idx, Tensor w) {
        if (ll != null)
            timeOne(what, "ll dispatch+combine bf16", () -> {
                LowLatencyDispatched d = ll.lowLatencyDispatch(x, idx, false, false);
                ll.lowLatencyCombine(d.recvX(), idx, w, d.handle(), false);
            });
        if (normal == null) return;
        MoeLayout layout = normal.layout(idx);
        timeOne(what, "normal dispatch+combine bf16", () -> {
            Dispatched d = normal.dispatch(x, idx, w, layout);
            normal.combine(d.recvX(), d.handle(), d.recvTopkWeights());
        });
    }

    private void timeOne(String what, String op, Runnable body) {
        for (int i = 0; i < 50; i++) body.run(); // warm-up
        long[] ns = new long[TIMED];
        for (int i = 0; i < TIMED; i++) {
            long t0 = System.nanoTime();
            body.run();
            ns[i] = System.nanoTime() - t0;
        }
        Arrays.sort(ns);
        System.out.println(String.format(
                Locale.ROOT,
                "MASK,%d,%s,%s,median_us=%.1f,p10_us=%.1f,p90_us=%.1f",
                me,
                what,
                op,
                ns[TIMED / 2] / 1e3,
                ns[TIMED / 10] / 1e3,
                ns[TIMED * 9 / 10] / 1e3));
    }

    // ------------------------------------------------------------------------------- the inputs

    /** Rank r's top-k ids: distinct experts, every 7th token's last slot unused. Same on every PE. */
    private long[] topk(int r) {
        SplittableRandom rnd = new SplittableRandom(31 + r);
        long[] ids = new long[TOKENS * TOPK];
        for (int t = 0; t < TOKENS; t++) {
            int[] pick = rnd.ints(0, experts).distinct().limit(TOPK).toArray();
            for (int k = 0; k < TOPK; k++) ids[t * TOPK + k] = k == TOPK - 1 && t % 7 == 0 ? -1 : pick[k];
        }
        return ids;
    }

    private float[] weights(int r) {
        SplittableRandom rnd = new SplittableRandom(77 + r);
        float[] w = new float[TOKENS * TOPK];
        for (int i = 0; i < w.length; i++) w[i] = (float) rnd.nextDouble();
        return w;
    }

    /** BF16 activations of rank r, variant v: small integers / 16 (exact in bf16), as little-endian bytes. */
    private static byte[] activations(int r, int v) {
        byte[] b = new byte[2 * TOKENS * HIDDEN];
        for (int i = 0; i < TOKENS * HIDDEN; i++) {
            float f = (float) (((i * 31L + r * 7L + v * 13L) % 61) - 30) / 16f;
            short s = (short) (Float.floatToRawIntBits(f) >>> 16);
            b[2 * i] = (byte) s;
            b[2 * i + 1] = (byte) (s >> 8);
        }
        return b;
    }

    private void fillX(DeviceBuffer xd, int r, int v) {
        copyIn(xd, MemorySegment.ofArray(activations(r, v)));
    }

    /** Every rank's batch as the reference sees the masked job: inactive ranks send nothing, entries naming them are -1. */
    private List<TokenBatch> inputs(ExpertMask mask, int v) {
        List<TokenBatch> in = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            if (!mask.rankActive(r)) {
                in.add(new TokenBatch(0, new byte[0], null, new long[0], new float[0]));
                continue;
            }
            long[] ids = topk(r);
            for (int i = 0; i < ids.length; i++)
                if (ids[i] >= 0 && !mask.rankActive((int) (ids[i] / LOCAL))) ids[i] = -1;
            in.add(new TokenBatch(TOKENS, activations(r, v), null, ids, weights(r)));
        }
        return in;
    }

    private static int[] dropped(long[] ids, ExpertMask mask) {
        int[] d = new int[ids.length / TOPK];
        for (int i = 0; i < ids.length; i++) if (ids[i] >= 0 && !mask.rankActive((int) (ids[i] / LOCAL))) d[i / TOPK]++;
        return d;
    }

    // ------------------------------------------------------------------------------- helpers

    private void check(boolean ok, String what) {
        if (ok) {
            System.out.println("PASS [rank " + me + "] " + what);
        } else {
            failed++;
            System.out.println("FAIL [rank " + me + "] " + what);
        }
    }

    /** Within one bf16 ulp of the fp32-accumulated reference (the kit's tolerance). */
    private void checkBf16(short[] got, short[] want, String what) {
        int worst = got.length == want.length ? 0 : Integer.MAX_VALUE, at = -1;
        for (int i = 0; i < Math.min(got.length, want.length); i++) {
            int d = Bf16.ulpDistance(got[i], want[i]);
            if (d > worst) {
                worst = d;
                at = i;
            }
        }
        check(
                worst <= 1,
                what
                        + (worst <= 1
                                ? ""
                                : ": " + worst + " ulp at element " + at + " (got "
                                        + (at >= 0 ? Bf16.toFloat(got[at]) : "?") + ", reference "
                                        + (at >= 0 ? Bf16.toFloat(want[at]) : "?") + ")"));
    }

    private void copyIn(DeviceBuffer to, MemorySegment from) {
        MemorySegment h = arena.allocate(from.byteSize(), 64);
        h.copyFrom(from);
        dev.copy(to, 0, Memory.of(h), 0, h.byteSize());
    }

    private Tensor host(DType dtype, MemorySegment data, long... shape) {
        Tensor t = Tensor.allocate(arena, dtype, shape);
        t.segment().copyFrom(data);
        return t;
    }

    private MemorySegment read(Tensor t) {
        if (t.memory().kind().isHost()) return t.segment();
        MemorySegment h = arena.allocate(Math.max(1, t.byteSize()), 64);
        if (t.byteSize() > 0) dev.copy(Memory.of(h), 0, t.memory(), 0, t.byteSize());
        return h.asSlice(0, t.byteSize());
    }

    private byte[] bytes(Tensor t) {
        return read(t).toArray(ValueLayout.JAVA_BYTE);
    }

    private short[] shorts(Tensor t) {
        return read(t).toArray(ValueLayout.JAVA_SHORT_UNALIGNED);
    }

    private int[] ints(Tensor t) {
        return read(t).toArray(ValueLayout.JAVA_INT_UNALIGNED);
    }

    private long[] longs(Tensor t) {
        return read(t).toArray(ValueLayout.JAVA_LONG_UNALIGNED);
    }

    private float[] floats(Tensor t) {
        return read(t).toArray(ValueLayout.JAVA_FLOAT_UNALIGNED);
    }
}
