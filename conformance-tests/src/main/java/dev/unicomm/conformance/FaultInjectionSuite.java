package dev.unicomm.conformance;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.CommConfig;
import dev.unicomm.api.CommException;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.Dispatched;
import dev.unicomm.api.Memory;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.ReduceOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Tensor;
import dev.unicomm.api.Unicomm;
import dev.unicomm.internal.rendezvous.Rendezvous;
import dev.unicomm.moe.reference.KitTensors;
import dev.unicomm.spi.Store;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/**
 * Fault injection at every phase of a job: a rank is SIGKILLed (never a clean exit) while the job
 * joins the rendezvous, opens its communicator, allocates symmetric memory, runs RMA and atomics,
 * waits in a barrier, runs an allreduce and runs MoE dispatch/combine; and the rendezvous host
 * (rank 0) is killed. Every survivor must fail within its timeout with a
 * {@link CommAbortedException} naming the lost rank (the host is named {@code -1}, or {@code 0} when
 * the backend notices the process first), and must then close without hanging.
 *
 * <p>The victim records the wall-clock time just before it kills itself, so each survivor reports
 * its detection latency (ms from the SIGKILL to the exception); {@link #detectionLog()} collects the
 * figures. Operations run in loops, so the kill lands inside an operation, not between rules.
 */
public abstract class FaultInjectionSuite extends KitSuite {
    /** Delay from the start of a loop to the victim's SIGKILL. */
    static final long KILL_AFTER_MS = 300;

    // ---- helpers run on the ranks --------------------------------------------------------------

    /** Where a rule's victim notes its kill time: one folder per kit parent (the launcher is our parent). */
    static Path clockFile(Pe pe) {
        long parent = ProcessHandle.current().parent().map(ProcessHandle::pid).orElse(0L);
        return Path.of(System.getProperty("java.io.tmpdir"), "unicomm-faultinj-" + parent, pe.rule() + ".killed-at");
    }

    /** SIGKILLs this JVM after {@code delayMs}, from a background thread, noting the time first. */
    static void killSelfAfter(Pe pe, long delayMs) {
        Path clock = clockFile(pe);
        Thread.ofPlatform().daemon().name("faultinj-killer").start(() -> {
            try {
                Thread.sleep(delayMs);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            killSelfNow(clock);
        });
    }

    /** Notes the time and SIGKILLs this JVM at once (falls back to {@link Runtime#halt}: no clean-up either way). */
    static void killSelfNow(Pe pe) {
        killSelfNow(clockFile(pe));
    }

    private static void killSelfNow(Path clock) {
        try {
            Files.createDirectories(clock.getParent());
            Files.writeString(clock, Long.toString(System.currentTimeMillis()));
        } catch (IOException e) {
            // no figure for this rule; the kill matters more
        }
        try {
            new ProcessBuilder(
                            "kill", "-9", Long.toString(ProcessHandle.current().pid()))
                    .start()
                    .waitFor();
        } catch (Exception e) {
            // no kill(1): vanish anyway
        }
        Runtime.getRuntime().halt(137);
    }

    /** Something a survivor waits in. */
    @FunctionalInterface
    interface Wait {
        void run() throws Exception;
    }

    /**
     * Survivors: {@code wait} must throw {@link CommAbortedException} naming one of {@code victims}
     * within the timeout (plus 5 s slack for a loaded machine). Reports the detection latency in ms.
     */
    static void expectAbort(Pe pe, Set<Integer> victims, String what, Wait wait) throws Exception {
        Duration limit = pe.timeout().plusSeconds(5);
        long t0 = System.nanoTime();
        CommAbortedException seen;
        try {
            wait.run();
            throw new AssertionFailedError(what + " returned normally although rank " + victims + " was killed");
        } catch (CommAbortedException e) {
            seen = e;
        } catch (CommException e) {
            throw new AssertionFailedError(
                    what + ": expected CommAbortedException naming rank " + victims + ", got " + e, e);
        }
        long atMs = System.currentTimeMillis();
        long tookMs = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(
                victims.contains(seen.failedRank()),
                what + ": the exception must name the killed rank " + victims + ": " + seen.getMessage());
        assertTrue(
                tookMs <= limit.toMillis(),
                what + " took " + tookMs + " ms to fail; limit " + limit.toMillis() + " ms");
        long detectMs = -1;
        Path clock = clockFile(pe);
        if (Files.exists(clock))
            detectMs = atMs - Long.parseLong(Files.readString(clock).trim());
        pe.report(detectMs + "," + seen.failedRank());
    }

    /** Survivors: closing the communicator after an abort must not hang (it may report the abort again). */
    static void closeQuietly(Pe pe, Communicator c, AutoCloseable... held) throws Exception {
        long t0 = System.nanoTime();
        List<AutoCloseable> all = new ArrayList<>(List.of(held)); // what the loop used (MoE buffer, tensors) first,
        all.add(c); // then the communicator, like a user's try block
        for (AutoCloseable r : all) {
            try {
                r.close();
            } catch (CommException e) {
                // reported, not hung
            }
        }
        long ms = (System.nanoTime() - t0) / 1_000_000;
        long limit = pe.timeout().plusSeconds(5).toMillis();
        assertTrue(
                ms <= limit,
                "close() after the abort took " + ms + " ms"
                        + (held.length > 0 ? " (with " + held.length + " resources the loop used)" : "") + "; limit "
                        + limit + " ms");
    }

    /** Runs {@code step} until it throws, or fails after twice the timeout (a survivor never loops forever). */
    static void loop(Pe pe, Wait step) throws Exception {
        long end = System.nanoTime() + pe.timeout().multipliedBy(2).toNanos();
        while (System.nanoTime() < end) step.run();
        throw new AssertionFailedError("the loop ran for twice the timeout without noticing the killed rank");
    }

    /**
     * Everyone runs {@code step} in a loop; the victim SIGKILLs itself {@value #KILL_AFTER_MS} ms in,
     * so the kill lands inside one of the steps. The survivors must abort naming it.
     */
    static void killInsideLoop(Pe pe, int victim, String what, Wait step, AutoCloseable... held) throws Exception {
        Communicator c = pe.comm();
        c.barrier(); // everyone is here and the loops start together
        if (pe.rank() == victim) {
            killSelfAfter(pe, KILL_AFTER_MS);
            loop(pe, step);
        } else {
            expectAbort(pe, Set.of(victim), what, () -> loop(pe, step));
            closeQuietly(pe, c, held);
        }
    }

    static int last(Pe pe) {
        return pe.size() - 1;
    }

    // ---- rules ------------------------------------------------------------------------------------

    /**
     * Verifies §7.2: a dead rank is named by CommAbortedException on every survivor, which can still close / if it fails, look at abort propagation through the store and the blocking waits.
     * <p>The victim joins a fresh job's rendezvous store and dies before opening: the others are opening.
     */
    @Verifies("7.2")
    @Test
    void required_faultinj_rank_killed_after_joining_rendezvous() {
        assumeRanks(2);
        kill(ranks() - 1, pe -> {
            CommConfig fresh = pe.freshConfig();
            if (pe.rank() == last(pe)) {
                Rendezvous.connect(fresh); // joined; the store connection dies with the process
                killSelfNow(pe);
            } else {
                expectAbort(pe, Set.of(last(pe)), "opening a communicator", () -> Unicomm.connect(fresh)
                        .close());
            }
        });
    }

    /**
     * Verifies §7.2: a dead rank is named by CommAbortedException on every survivor, which can still close / if it fails, look at abort propagation through the store and the blocking waits.
     *
     * The victim is killed inside its own open, after it created its shared resources, while rank 0
     * waits in the same open; the middle ranks never open and see the abort on the job's communicator.
     */
    @Verifies("7.2")
    @Test
    void required_faultinj_rank_killed_inside_open() {
        killInsideOpen();
    }

    /** The body of {@link #required_faultinj_rank_killed_inside_open}, for backends' own follow-up checks. */
    protected final List<RankResult> killInsideOpen() {
        assumeRanks(3);
        return kill(ranks() - 1, pe -> {
            CommConfig fresh = pe.freshConfig();
            int victim = last(pe);
            if (pe.rank() == victim) {
                killSelfAfter(
                        pe,
                        3000); // long enough to be inside the open, after creating its resources, on a loaded machine
                Unicomm.connect(fresh).close(); // blocks: the middle ranks never come
                Thread.sleep(60_000);
            } else if (pe.rank() == 0) {
                expectAbort(pe, Set.of(victim), "opening a communicator", () -> Unicomm.connect(fresh)
                        .close());
            } else {
                expectAbort(pe, Set.of(victim), "barrier", pe.comm()::barrier);
                closeQuietly(pe, pe.comm());
            }
        });
    }

    /**
     * Verifies §7.2: a dead rank is named by CommAbortedException on every survivor, which can still close / if it fails, look at abort propagation through the store and the blocking waits.
     * <p>A rank that dies before it ever reaches the rendezvous cannot be named: the others time out instead.
     */
    @Verifies("7.2")
    @Test
    void required_faultinj_rank_killed_before_rendezvous_times_the_others_out() {
        assumeRanks(2);
        kill(ranks() - 1, pe -> {
            CommConfig fresh = pe.freshConfig().withTimeout(Duration.ofSeconds(3));
            if (pe.rank() == last(pe)) {
                killSelfNow(pe);
            } else {
                long t0 = System.nanoTime();
                try {
                    Unicomm.connect(fresh).close();
                    throw new AssertionFailedError("opening returned although rank " + last(pe) + " never joined");
                } catch (CommTimeoutException | CommAbortedException e) {
                    // The first survivor to time out aborts the open, so the others may see its abort instead.
                    long ms = (System.nanoTime() - t0) / 1_000_000;
                    assertTrue(ms <= fresh.timeout().plusSeconds(5).toMillis(), "open took " + ms + " ms to fail");
                    assertTrue(
                            !(e instanceof CommAbortedException a) || a.failedRank() != last(pe) && a.failedRank() >= 0,
                            "an abort here must come from a survivor that timed out: " + e.getMessage());
                    pe.report(ms + ","
                            + (e instanceof CommAbortedException a ? "abort-by-" + a.failedRank() : "timeout"));
                }
            }
        });
    }

    /**
     * Verifies §7.2: a dead rank is named by CommAbortedException on every survivor, which can still close / if it fails, look at abort propagation through the store and the blocking waits.
     * <p>The rendezvous host (rank 0) is killed while every rank is connected to its store.
     */
    @Verifies("7.2")
    @Test
    void required_faultinj_rendezvous_host_killed_while_ranks_wait_on_the_store() {
        assumeRanks(2);
        kill(0, pe -> {
            CommConfig fresh = pe.freshConfig();
            Store store = Rendezvous.connect(fresh);
            if (pe.rank() == 0) {
                store.barrier("joined");
                killSelfNow(pe);
            } else {
                expectAbort(pe, Set.of(-1), "store barrier + get", () -> {
                    store.barrier("joined");
                    store.get("never-set");
                });
                store.close();
            }
        });
    }

    /**
     * Verifies §7.2: a dead rank is named by CommAbortedException on every survivor, which can still close / if it fails, look at abort propagation through the store and the blocking waits.
     * <p>The rendezvous host (rank 0) is killed while the others wait in a barrier of the communicator.
     */
    @Verifies("7.2")
    @Test
    void required_faultinj_rendezvous_host_killed_in_barrier() {
        assumeRanks(2);
        kill(0, pe -> {
            Communicator c = pe.comm();
            c.barrier();
            if (pe.rank() == 0) {
                killSelfAfter(pe, KILL_AFTER_MS);
                Thread.sleep(60_000);
            } else {
                // The store names the lost host -1; a backend watching processes may name rank 0 first.
                expectAbort(pe, Set.of(-1, 0), "barrier", c::barrier);
                closeQuietly(pe, c);
            }
        });
    }

    /** Verifies §7.2: a dead rank is named by CommAbortedException on every survivor, which can still close / if it fails, look at abort propagation through the store and the blocking waits. */
    @Verifies("7.2")
    @Test
    void required_faultinj_rank_killed_in_heap_allocation() {
        assumeRanks(2);
        kill(
                ranks() - 1,
                pe -> killInsideLoop(pe, last(pe), "allocate/free", () -> {
                    try (SymmetricBuffer b = pe.comm().heap().allocate(64 << 10)) {
                        Mem.write(pe.comm(), b, 0, Mem.longs(1)); // through RMA where the heap is device memory
                    }
                }));
    }

    /** Verifies §7.2: a dead rank is named by CommAbortedException on every survivor, which can still close / if it fails, look at abort propagation through the store and the blocking waits. */
    @Verifies("7.2")
    @Test
    void required_faultinj_rank_killed_mid_rma() {
        assumeRanks(2);
        kill(ranks() - 1, pe -> {
            Communicator c = pe.comm();
            int n = c.size(), me = c.rank();
            SymmetricBuffer buf = c.heap().allocate(1 << 16);
            MemorySegment local = Arena.ofAuto().allocate(1 << 14);
            int[] i = {0};
            killInsideLoop(pe, last(pe), "put/get/atomics", () -> {
                int peer = (me + 1 + i[0] % (n - 1)) % n;
                c.rma().put(buf, 0, Memory.of(local), 0, local.byteSize(), peer);
                c.rma().get(Memory.of(local), 0, buf, 1 << 14, 1 << 14, peer);
                c.rma().atomicFetchAdd(buf, 1 << 15, 1, peer);
                c.rma().quiet();
                if (++i[0] % 8 == 0) c.barrier();
            });
        });
    }

    /** Verifies §7.2: a dead rank is named by CommAbortedException on every survivor, which can still close / if it fails, look at abort propagation through the store and the blocking waits. */
    @Verifies("7.2")
    @Test
    void required_faultinj_rank_killed_in_barrier() {
        assumeRanks(2);
        kill(ranks() - 1, pe -> killInsideLoop(pe, last(pe), "barrier", pe.comm()::barrier));
    }

    /** Verifies §7.2: a dead rank is named by CommAbortedException on every survivor, which can still close / if it fails, look at abort propagation through the store and the blocking waits. */
    @Verifies("7.2")
    @Test
    void required_faultinj_rank_killed_in_allreduce() {
        assumeRanks(2);
        kill(ranks() - 1, pe -> {
            Communicator c = pe.comm();
            SymmetricBuffer src = c.heap().allocate(64 << 10), dst = c.heap().allocate(64 << 10);
            killInsideLoop(
                    pe,
                    last(pe),
                    "allreduce",
                    () -> c.collectives().allreduce(c.world(), dst, src, 16 << 10, DType.FP32, ReduceOp.SUM),
                    dst,
                    src);
        });
    }

    /** Verifies §7.2: a dead rank is named by CommAbortedException on every survivor, which can still close / if it fails, look at abort propagation through the store and the blocking waits. */
    @Verifies("7.2")
    @Test
    void required_faultinj_rank_killed_in_moe_dispatch_combine() {
        assumeRanks(2);
        kill(ranks() - 1, pe -> {
            Communicator c = pe.comm();
            int tokens = 32, hidden = 128, k = 2, experts = 2 * c.size();
            MoeBuffer moe = MoeSuite.open(c, new MoeConfig(MoeConfig.Mode.NORMAL, experts, hidden, tokens, k, false));
            KitTensors kt = new KitTensors(
                    c); // x in device memory where the backend's MoE runs on a device, as in the Moe suite
            Tensor x = kt.place(kt.hostTensor(DType.BF16, tokens, hidden));
            Tensor idx = kt.hostTensor(DType.INT64, tokens, k);
            Tensor w = kt.hostTensor(DType.FP32, tokens, k);
            SplittableRandom rnd = new SplittableRandom(c.rank());
            for (int t = 0; t < tokens; t++) {
                int e0 = rnd.nextInt(experts), e1 = (e0 + 1 + rnd.nextInt(experts - 1)) % experts;
                idx.segment().setAtIndex(ValueLayout.JAVA_LONG, 2L * t, e0);
                idx.segment().setAtIndex(ValueLayout.JAVA_LONG, 2L * t + 1, e1);
                w.segment().setAtIndex(ValueLayout.JAVA_FLOAT, 2L * t, 0.5f);
                w.segment().setAtIndex(ValueLayout.JAVA_FLOAT, 2L * t + 1, 0.5f);
            }
            var layout = moe.layout(idx);
            killInsideLoop(
                    pe,
                    last(pe),
                    "MoE dispatch/combine",
                    () -> {
                        Dispatched d = moe.dispatch(x, idx, w, layout);
                        moe.combine(d.recvX(), d.handle());
                    },
                    kt,
                    moe); // a survivor closes both after the abort, before its communicator, within the close limit
        });
    }

    // ---- figures ------------------------------------------------------------------------------------

    /** Every survivor's detection figures so far: {@code rule,rank,latencyMs,namedRank} lines. */
    protected static final List<String> DETECTIONS = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** Where the suite writes its figures (a CSV), or {@code null} for nowhere. */
    protected Path detectionLog() {
        return Files.isDirectory(Path.of("target")) ? Path.of("target", "reliability", "fault-detection.csv") : null;
    }

    @AfterAll
    final void writeFigures() throws IOException {
        Path out = detectionLog();
        if (out != null && !DETECTIONS.isEmpty()) {
            Files.createDirectories(out.getParent());
            Files.write(
                    out,
                    Stream.concat(Stream.of("backend,ranks,rule,rank,detect_ms,named_rank"), DETECTIONS.stream())
                            .toList());
        }
        Path clocks = Path.of(
                System.getProperty("java.io.tmpdir"),
                "unicomm-faultinj-" + ProcessHandle.current().pid());
        if (Files.isDirectory(clocks)) {
            try (Stream<Path> s = Files.walk(clocks)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (UncheckedIOException e) {
                // temp files only
            }
        }
    }

    /** Runs a kill rule and keeps the survivors' figures. */
    private List<RankResult> kill(int victim, Body body) {
        List<RankResult> results = spmdKilling(victim, body);
        for (RankResult r : results) {
            if (r.value().isEmpty()) continue;
            DETECTIONS.add(backend() + "," + ranks() + "," + rule() + "," + r.rank() + "," + r.value());
        }
        return results;
    }
}
