package dev.unicomm.conformance;

import dev.unicomm.launch.JobLauncher;
import dev.unicomm.launch.JobResult;
import dev.unicomm.launch.JobSpec;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The parent's side of one suite's job: N worker JVMs ({@link KitWorker}), each one rank, started
 * once by the shared {@link JobLauncher} (rendezvous store, token, rank variables) and reused by
 * every rule of the suite. Rules go out over a token-authenticated localhost
 * control channel; results come back per rank. With a {@link WorkerPlacement} (a job across hosts) the kit
 * starts the workers itself ({@link PlacedWorkers}) and the control channel is each worker's standard input
 * and output instead, so the hosts need not reach this machine. A rank that does not answer in time is reported
 * {@link Outcome#HUNG} and the whole job is killed, never waited on forever.
 */
final class WorkerGroup implements AutoCloseable {
    /** Extra communicators a rule may open ({@link Pe#freshConfig()}). */
    static final int FRESH_PORTS = 8;

    /** How to start the workers. */
    record Spec(
            String name,
            int ranks,
            String backend,
            Duration commTimeout,
            long heapBytes,
            boolean connect,
            List<String> jvmArgs,
            String classPath,
            Map<String, String> env,
            Path logDir,
            Duration startTimeout,
            WorkerPlacement placement) {}

    /** {@code UNICOMM_KIT_CONTROL} of a worker whose control channel is its standard input and output. */
    static final String STDIO = "stdio";

    private record Event(
            int rank,
            int seq,
            Outcome outcome,
            String message,
            String value,
            String algorithms,
            String topology,
            long nanos) {
        Event(int rank, int seq, Outcome outcome, String message, String value, long nanos) {
            this(rank, seq, outcome, message, value, "", "", nanos);
        }
    }

    private final Spec spec;
    private final long[] pids;
    private final List<DataOutputStream> outs = new ArrayList<>();
    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final List<Socket> sockets = new ArrayList<>();
    private final Path log;
    private Thread launcher;
    private PlacedWorkers placed;
    private PrintStream placedLog;
    private volatile JobResult jobResult;
    private volatile RuntimeException launchError;
    private int seq;
    private boolean broken;

    private WorkerGroup(Spec spec) {
        this.spec = spec;
        this.pids = new long[spec.ranks()];
        this.log = spec.logDir().resolve(spec.name() + ".log");
    }

    /** Starts the workers and waits until every one has opened its communicator. */
    static WorkerGroup start(Spec spec) {
        WorkerGroup g = new WorkerGroup(spec);
        try {
            g.launch();
            return g;
        } catch (RuntimeException | IOException e) {
            g.kill();
            throw e instanceof RuntimeException re ? re : new IllegalStateException(e.getMessage(), e);
        }
    }

    /** Starts the job with the shared {@link JobLauncher} on a background thread; its output goes to the log. */
    private void launch() throws IOException {
        String token = HexFormat.of().formatHex(SecureRandom.getSeed(16));
        Files.createDirectories(spec.logDir());
        if (spec.placement() != null) {
            launchPlaced(token);
            return;
        }
        try (ServerSocket control = new ServerSocket(0, spec.ranks(), InetAddress.getLoopbackAddress())) {
            Map<String, String> env = new HashMap<>(spec.env());
            env.put("UNICOMM_HEAP_SIZE", Long.toString(spec.heapBytes()));
            env.put("UNICOMM_KIT_HEAP_BYTES", Long.toString(spec.heapBytes()));
            env.put("UNICOMM_KIT_CONTROL", "127.0.0.1:" + control.getLocalPort());
            env.put("UNICOMM_KIT_TOKEN", token);
            env.put("UNICOMM_KIT_CONNECT", Boolean.toString(spec.connect()));
            // After a rank dies the launcher stops the others; give survivors time to report first.
            Duration grace = spec.commTimeout().plusSeconds(10);
            JobSpec job = new JobSpec(
                    spec.ranks(),
                    JobSpec.currentJava(),
                    Arrays.asList(spec.classPath().split(File.pathSeparator)),
                    KitWorker.class.getName(),
                    List.of(),
                    spec.jvmArgs(),
                    env,
                    spec.backend(),
                    false,
                    spec.commTimeout(),
                    null,
                    grace);
            PrintStream sink = new PrintStream(new FileOutputStream(log.toFile()), true, StandardCharsets.UTF_8);
            launcher = Thread.ofPlatform()
                    .daemon()
                    .name("kit-job-" + spec.name())
                    .start(() -> {
                        try {
                            jobResult = JobLauncher.run(job, sink, sink);
                        } catch (RuntimeException e) {
                            launchError = e;
                            sink.println("[kit] job launcher: " + e);
                        } finally {
                            sink.close();
                        }
                    });
            long deadline = System.nanoTime() + spec.startTimeout().toNanos();
            Socket[] byRank = new Socket[spec.ranks()];
            DataInputStream[] ins = new DataInputStream[spec.ranks()];
            for (int i = 0; i < spec.ranks(); i++) {
                Socket s = accept(control, deadline);
                var in = new DataInputStream(new BufferedInputStream(s.getInputStream()));
                s.setSoTimeout((int) Math.max(1, remainingMillis(deadline)));
                if (in.readInt() != Wire.MAGIC || !Wire.readString(in).equals(token)) {
                    s.close();
                    i--;
                    continue;
                }
                int rank = in.readInt();
                long pid = in.readLong();
                if (rank < 0 || rank >= spec.ranks() || byRank[rank] != null)
                    throw new IOException("bad hello from rank " + rank);
                pids[rank] = pid;
                byRank[rank] = s;
                ins[rank] = in;
                sockets.add(s);
            }
            // Every rank reports whether its communicator opened (a collective, so wait for all).
            List<String> startErrors = new ArrayList<>();
            for (int r = 0; r < spec.ranks(); r++) {
                try {
                    byRank[r].setSoTimeout((int) Math.max(1, remainingMillis(deadline)));
                    String err = Wire.readString(ins[r]);
                    if (!err.isEmpty()) startErrors.add("rank " + r + ": " + err);
                } catch (SocketTimeoutException e) {
                    startErrors.add("rank " + r + ": did not open its communicator within "
                            + spec.startTimeout().toSeconds() + " s");
                } catch (IOException e) {
                    startErrors.add("rank " + r + ": exited while starting" + logTail(r));
                }
                byRank[r].setSoTimeout(0);
            }
            if (!startErrors.isEmpty())
                throw new IllegalStateException("the " + spec.ranks() + "-rank job of backend '" + spec.backend()
                        + "' did not start: " + String.join("; ", startErrors));
            for (int r = 0; r < spec.ranks(); r++) {
                outs.add(new DataOutputStream(new BufferedOutputStream(byRank[r].getOutputStream())));
                startReader(r, ins[r]);
            }
        }
    }

    /**
     * Starts the workers on their hosts ({@link PlacedWorkers}) and reads each one's hello and start report
     * from its standard output, within the start deadline.
     */
    private void launchPlaced(String token) throws IOException {
        Map<String, String> env = new HashMap<>(spec.env());
        env.put("UNICOMM_HEAP_SIZE", Long.toString(spec.heapBytes()));
        env.put("UNICOMM_KIT_HEAP_BYTES", Long.toString(spec.heapBytes()));
        env.put("UNICOMM_KIT_TOKEN", token);
        env.put("UNICOMM_KIT_CONNECT", Boolean.toString(spec.connect()));
        placedLog = new PrintStream(new FileOutputStream(log.toFile()), true, StandardCharsets.UTF_8);
        int storePort = freePorts(1).getFirst();
        placed = PlacedWorkers.start(
                spec, env, storePort, HexFormat.of().formatHex(SecureRandom.getSeed(24)), placedLog);
        long deadline = System.nanoTime() + spec.startTimeout().toNanos();
        // Pipes have no read timeout: each rank's hello and start report are read on a thread of their own.
        List<java.util.concurrent.CompletableFuture<String>> opened = new ArrayList<>();
        DataInputStream[] ins = new DataInputStream[spec.ranks()];
        for (int r = 0; r < spec.ranks(); r++) {
            int rank = r;
            ins[r] = new DataInputStream(new BufferedInputStream(placed.control(r)));
            var f = new java.util.concurrent.CompletableFuture<String>();
            opened.add(f);
            Thread.ofPlatform().daemon().name("kit-hello-rank" + r).start(() -> {
                try {
                    DataInputStream in = ins[rank];
                    int magic = in.readInt();
                    if (magic != Wire.MAGIC || !Wire.readString(in).equals(token)) {
                        byte[] head =
                                java.nio.ByteBuffer.allocate(4).putInt(magic).array();
                        f.complete("rank " + rank
                                + ": its worker wrote something else than the kit's hello on standard output (it began '"
                                + new String(head, StandardCharsets.ISO_8859_1).replaceAll("\\p{Cntrl}", "?")
                                + "'; the placement's command must"
                                + " pass the worker's standard output through untouched)");
                        return;
                    }
                    int said = in.readInt();
                    in.readLong(); // its pid in its own host's PID namespace: of no use here, the wrapper process
                    // is killed instead
                    if (said != rank) {
                        f.complete("rank " + rank + ": its worker says it is rank " + said);
                        return;
                    }
                    String err = Wire.readString(in);
                    f.complete(err.isEmpty() ? "" : "rank " + rank + ": " + err);
                } catch (IOException e) {
                    f.complete("rank " + rank + ": exited while starting" + logTail(rank));
                }
            });
        }
        List<String> startErrors = new ArrayList<>();
        for (int r = 0; r < spec.ranks(); r++) {
            try {
                String err = opened.get(r).get(Math.max(1, remainingMillis(deadline)), TimeUnit.MILLISECONDS);
                if (!err.isEmpty()) startErrors.add(err);
            } catch (java.util.concurrent.TimeoutException e) {
                startErrors.add("rank " + r + ": did not open its communicator within "
                        + spec.startTimeout().toSeconds() + " s");
            } catch (java.util.concurrent.ExecutionException | InterruptedException e) {
                startErrors.add("rank " + r + ": " + e);
            }
        }
        if (!startErrors.isEmpty())
            throw new IllegalStateException("the " + spec.ranks() + "-rank job of backend '" + spec.backend() + "' on "
                    + spec.placement() + " did not start: " + String.join("; ", startErrors));
        for (int r = 0; r < spec.ranks(); r++) {
            outs.add(new DataOutputStream(new BufferedOutputStream(placed.commands(r))));
            startReader(r, ins[r]);
        }
    }

    private Socket accept(ServerSocket control, long deadline) throws IOException {
        while (true) {
            long left = remainingMillis(deadline);
            if (left <= 0)
                throw new IllegalStateException("only " + sockets.size() + " of " + spec.ranks()
                        + " worker JVMs connected within " + spec.startTimeout().toSeconds() + " s" + logTail(-1));
            control.setSoTimeout((int) Math.min(left, 500));
            try {
                return control.accept();
            } catch (SocketTimeoutException e) {
                if (!launcher.isAlive()) {
                    JobResult jr = jobResult;
                    throw new IllegalStateException("worker JVMs exited before connecting"
                            + (jr == null ? "" : " (exit codes by rank: " + jr.rankExitCodes() + ")")
                            + (launchError == null ? "" : ": " + launchError.getMessage()) + logTail(-1));
                }
            }
        }
    }

    private void startReader(int rank, DataInputStream in) {
        Thread t = Thread.ofPlatform().daemon().name("kit-control-rank" + rank).start(() -> {
            try {
                while (true) {
                    int type = in.readInt();
                    if (type == Wire.EXIT) {
                        events.add(new Event(rank, -1, Outcome.PASSED, "exited", "", 0));
                        return;
                    }
                    if (type != Wire.RESULT)
                        throw new IOException("unexpected control frame " + type + " from rank " + rank);
                    int s = in.readInt();
                    Outcome o = Outcome.values()[in.readInt()];
                    String msg = Wire.readString(in);
                    String val = Wire.readString(in);
                    String algorithms = Wire.readString(in);
                    String topology = Wire.readString(in);
                    events.add(new Event(rank, s, o, msg, val, algorithms, topology, in.readLong()));
                }
            } catch (IOException e) {
                events.add(new Event(rank, -2, Outcome.DIED, "", "", 0));
            }
        });
        t.setUncaughtExceptionHandler(
                (th, e) -> events.add(new Event(rank, -2, Outcome.DIED, String.valueOf(e), "", 0)));
    }

    /** Whether a previous rule left the job in a state that needs a restart. */
    boolean broken() {
        return broken;
    }

    /**
     * Runs {@code body} on every rank and returns one result per rank, in rank order. When a rank
     * fails, the others get {@link #FAILURE_GRACE} to finish; those still busy then are released by
     * an abort of the job's store. A job that hung, lost a rank or was aborted is killed, and the
     * suite starts a fresh one for its next rule, so one failure cannot cascade into the rules after
     * it; a job whose ranks all finished the failed rule is kept when a probe (barrier, no heap left
     * allocated) passes, so a broken data path does not pay a restart per rule.
     */
    List<RankResult> run(String rule, Body body, Duration limit) {
        byte[] bytes = serialize(rule, body);
        int mySeq = ++seq;
        List<Integer> ports = freePorts(FRESH_PORTS);
        RankResult[] results = new RankResult[spec.ranks()];
        for (int r = 0; r < spec.ranks(); r++) {
            try {
                DataOutputStream out = outs.get(r);
                out.writeInt(Wire.RUN);
                out.writeInt(mySeq);
                Wire.writeString(out, rule);
                Wire.writeBytes(out, bytes);
                out.writeInt(ports.size());
                for (int p : ports) out.writeInt(p);
                out.flush();
            } catch (IOException e) {
                results[r] = died(r, Duration.ZERO);
            }
        }
        long t0 = System.nanoTime();
        long deadline = t0 + limit.toNanos();
        long graceEnd = Long.MAX_VALUE; // set by the first rank that fails
        boolean aborted = false;
        int missing = 0;
        for (RankResult x : results) if (x == null) missing++;
        while (missing > 0) {
            Event e;
            try {
                e = events.poll(Math.max(0, Math.min(deadline, graceEnd) - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                break;
            }
            if (e == null) {
                if (System.nanoTime() >= deadline) break;
                // a rank failed and the others are still busy, probably waiting for it: release them
                abort(rule, results);
                aborted = true;
                graceEnd = Long.MAX_VALUE;
                continue;
            }
            if (results[e.rank()] != null) continue;
            if (e.seq() == -2) {
                results[e.rank()] = died(e.rank(), Duration.ofNanos(System.nanoTime() - t0));
                missing--;
            } else if (e.seq() == mySeq) {
                results[e.rank()] = new RankResult(
                        e.rank(),
                        e.outcome(),
                        e.message(),
                        e.value(),
                        Duration.ofNanos(e.nanos()),
                        e.algorithms(),
                        e.topology());
                missing--;
            } else {
                continue;
            }
            // A rank whose body failed: the others may be waiting for it. (A rank that died is noticed by the
            // others' own watchdogs, which name it; an abort from here would name someone else.)
            if (results[e.rank()].outcome() == Outcome.FAILED && !aborted && graceEnd == Long.MAX_VALUE)
                graceEnd = System.nanoTime() + FAILURE_GRACE.toNanos();
        }
        for (int r = 0; r < results.length; r++) {
            if (results[r] == null) {
                results[r] = new RankResult(
                        r,
                        Outcome.HUNG,
                        "did not finish rule " + rule + " within " + limit.toMillis() + " ms; the job was killed (log: "
                                + log + ")",
                        "",
                        limit);
            }
        }
        boolean failed = false, clean = !aborted;
        for (RankResult x : results) {
            if (x.outcome() != Outcome.PASSED && x.outcome() != Outcome.SKIPPED) failed = true;
            if (x.outcome() == Outcome.HUNG || x.outcome() == Outcome.DIED) clean = false;
        }
        // A rule that failed on ranks that all finished it leaves a job that may serve the next rule
        // (a data check failed, nothing hangs): probe it instead of paying for a restart.
        if (failed && !(clean && probe())) broken = true;
        if (broken) kill();
        return List.of(results);
    }

    /** How long the other ranks may still finish a rule after one rank failed it, before they are released by an abort. */
    static final Duration FAILURE_GRACE = Duration.ofMillis(1500);

    /** Asks a rank that failed the rule to abort the job's store, so that ranks waiting for it stop. */
    private void abort(String rule, RankResult[] results) {
        for (int r = 0; r < results.length; r++) {
            if (results[r] == null || results[r].outcome() != Outcome.FAILED) continue;
            try {
                DataOutputStream out = outs.get(r);
                out.writeInt(Wire.ABORT);
                Wire.writeString(out, "rule " + rule + " failed on rank " + r);
                out.flush();
                return; // one abort reaches every rank
            } catch (IOException e) {
                // that worker is gone; try the next failed one (the job is restarted anyway)
            }
        }
    }

    /** Whether every rank still passes a barrier and holds no heap the failed rule left behind (see KitWorker.probe). */
    private boolean probe() {
        int mySeq = ++seq;
        for (DataOutputStream out : outs) {
            try {
                out.writeInt(Wire.PROBE);
                out.writeInt(mySeq);
                out.flush();
            } catch (IOException e) {
                return false;
            }
        }
        long deadline = System.nanoTime() + spec.commTimeout().plusSeconds(5).toNanos();
        boolean[] fit = new boolean[spec.ranks()];
        int missing = spec.ranks();
        while (missing > 0) {
            Event e;
            try {
                e = events.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException ie) {
                Thread.currentThread().interrupt();
                return false;
            }
            if (e == null || e.seq() == -2) return false;
            if (e.seq() != mySeq || fit[e.rank()]) continue;
            if (e.outcome() != Outcome.PASSED) return false;
            fit[e.rank()] = true;
            missing--;
        }
        return true;
    }

    private RankResult died(int r, Duration t) {
        if (placed != null) {
            placed.awaitExit(r, 2000);
            boolean alive = placed.alive(r);
            long until = System.nanoTime() + 1_000_000_000L;
            while (!alive && !logMentionsExit(r) && System.nanoTime() < until) sleepQuietly(50);
            return new RankResult(
                    r,
                    Outcome.DIED,
                    "worker JVM " + (alive ? "closed its control channel" : "exited") + logTail(r),
                    "",
                    t);
        }
        // Let the process finish dying and the launcher write its note about it.
        long pid = pids[r];
        if (pid > 0)
            ProcessHandle.of(pid).ifPresent(h -> {
                try {
                    h.onExit().get(2, TimeUnit.SECONDS);
                } catch (Exception e) {
                    // still alive: it closed the channel but lingers; reported as such
                }
            });
        boolean alive =
                pid > 0 && ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
        long until = System.nanoTime() + 1_000_000_000L;
        while (!alive && !logMentionsExit(r) && System.nanoTime() < until) sleepQuietly(50);
        return new RankResult(
                r, Outcome.DIED, "worker JVM " + (alive ? "closed its control channel" : "exited") + logTail(r), "", t);
    }

    private boolean logMentionsExit(int r) {
        try {
            return Files.readString(log).contains("rank " + r + " exited with code");
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The last lines of the job's log about rank {@code r} (all ranks for -1), for messages about failed workers. */
    private String logTail(int r) {
        try {
            List<String> lines = Files.readAllLines(log).stream()
                    .filter(l -> r < 0
                            || l.startsWith("[" + r + "] ")
                            || l.contains("rank " + r + " ")
                            || l.startsWith("[kit]"))
                    .toList();
            List<String> tail = lines.subList(Math.max(0, lines.size() - 15), lines.size());
            return tail.isEmpty()
                    ? " (no output; log " + log + ")"
                    : " (log " + log + ", last lines:\n  " + String.join("\n  ", tail) + ")";
        } catch (IOException | RuntimeException e) {
            return " (log " + log + " unreadable: " + e + ")";
        }
    }

    private static byte[] serialize(String rule, Body body) {
        try {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            try (ObjectOutputStream o = new ObjectOutputStream(b)) {
                o.writeObject(body);
            }
            return b.toByteArray();
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "the body of rule " + rule + " is not serializable (write it as a "
                            + "method reference to a static method, or capture only serializable values): " + e,
                    e);
        }
    }

    /** Distinct free loopback ports (held open together so they differ, then released). */
    static List<Integer> freePorts(int n) {
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) held.add(new ServerSocket(0, 1, InetAddress.getLoopbackAddress()));
            return held.stream().map(ServerSocket::getLocalPort).toList();
        } catch (IOException e) {
            throw new IllegalStateException("cannot find free loopback ports: " + e, e);
        } finally {
            for (ServerSocket s : held) {
                try {
                    s.close();
                } catch (IOException ignored) {
                    // released anyway when the socket is collected
                }
            }
        }
    }

    private static long remainingMillis(long deadline) {
        return (deadline - System.nanoTime()) / 1_000_000;
    }

    /** Asks the workers to close their communicators and exit; kills whatever is left after a grace period. */
    @Override
    public void close() {
        if (!broken) {
            for (DataOutputStream out : outs) {
                try {
                    out.writeInt(Wire.EXIT);
                    out.flush();
                } catch (IOException ignored) {
                    // that worker is gone already; killed below
                }
            }
            long until = System.nanoTime() + spec.commTimeout().plusSeconds(5).toNanos();
            if (placed != null) {
                while (!placed.allExited() && System.nanoTime() < until) sleepQuietly(20);
            } else {
                try {
                    launcher.join(spec.commTimeout().plusSeconds(5));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        kill();
    }

    /** Kills every worker JVM (the launcher stops all ranks when interrupted) and waits for them to go. */
    void kill() {
        if (placed != null) {
            placed.kill();
            placedLog.close();
        }
        if (launcher != null && launcher.isAlive()) {
            launcher.interrupt();
            try {
                launcher.join(Duration.ofSeconds(15));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        for (long pid : pids) {
            if (pid > 0) ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
        for (Socket s : sockets) {
            try {
                s.close();
            } catch (IOException ignored) {
                // closing a dead connection
            }
        }
    }
}
