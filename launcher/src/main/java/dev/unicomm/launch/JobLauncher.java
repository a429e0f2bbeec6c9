package dev.unicomm.launch;

import dev.unicomm.api.CommException;
import dev.unicomm.internal.rendezvous.StoreTls;
import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Starts a job of N ranks on this host, like torchrun or oshrun: every rank is a JVM whose
 * environment says who it is ({@code UNICOMM_RANK}, {@code UNICOMM_WORLD_SIZE},
 * {@code UNICOMM_LOCAL_RANK}) and where rank 0 serves the rendezvous store ({@code UNICOMM_STORE}
 * on a free loopback port), with a fresh random {@code UNICOMM_TOKEN} (never printed) and, with
 * TLS, a fresh per-job key pair handed to the ranks through a pipe on their standard input (no key
 * file outlives the launcher's start-up). The same pipe ties each rank to the launcher: when the
 * launcher dies, even by {@code kill -9}, the ranks exit ({@link LauncherLink}). Every line a rank prints is prefixed with {@code [rank] }. When a
 * rank exits with a non-zero code, the others get {@link JobSpec#killGrace()} to notice (their store
 * calls fail with {@code CommAbortedException}) and are then killed with their descendants; the
 * job's exit code is the first failure's. In elastic mode ({@link #isElastic}) the others go on
 * instead, and a job whose survivors complete exits with {@value #LOST_RANKS_EXIT_CODE}. The job
 * timeout, if any, kills everything. The class path and main class are checked before any rank starts.
 */
public final class JobLauncher {
    private JobLauncher() {}

    /** Exit code of a job ended by its timeout (as {@code timeout(1)}). */
    public static final int TIMEOUT_EXIT_CODE = 124;
    /**
     * Exit code of an elastic job that completed after losing ranks: at least one rank exited 0 and
     * every rank that did not is in {@link JobResult#lostRanks()}, so the work is done, on fewer ranks.
     * From the sysexits range (EX_TEMPFAIL), away from 0, 1, the timeout's 124 and 128 + signal.
     */
    public static final int LOST_RANKS_EXIT_CODE = 75;
    /** How long a rank may take to stop after SIGTERM before it is killed. */
    private static final Duration TERM_GRACE = Duration.ofSeconds(2);
    /** How long output of exited ranks may take to drain (a leftover grandchild may hold the pipe). */
    private static final Duration DRAIN_LIMIT = Duration.ofSeconds(5);

    private static final String PREFIX = "[unicomm run] ";

    /** Runs the job with its output on {@link System#out} / {@link System#err}. */
    public static JobResult run(JobSpec spec) {
        return run(spec, System.out, System.err);
    }

    /**
     * Runs the job to its end; ranks' standard output goes to {@code out}, their standard error and
     * the launcher's own messages to {@code err}, each line prefixed with its rank.
     *
     * @throws CommException if a rank cannot be started or the TLS key pair cannot be created
     * @throws IllegalArgumentException before any rank starts, if a class path entry is missing or the main class
     *         cannot be loaded from the class path or has no {@code main}
     */
    public static JobResult run(JobSpec spec, PrintStream out, PrintStream err) {
        // The job timeout counts from here: starting many JVMs on a small host can itself take long.
        long jobDeadline = spec.jobTimeout() == null ? Long.MAX_VALUE : System.nanoTime() + nanos(spec.jobTimeout());
        Preflight.check(spec);
        boolean elastic = isElastic(spec);
        NodeLayout nodes = spec.nodes();
        int port = nodes == null ? freeLoopbackPort() : nodes.masterPort();
        String token = nodes == null ? randomSecret() : sharedSecret(spec);
        List<Process> ranks = new ArrayList<>();
        List<Thread> pumps = new ArrayList<>();
        List<OutputStream> links = new ArrayList<>();
        Thread onLauncherExit = new Thread(() -> stopAll(ranks, Duration.ZERO), "unicomm-run-shutdown");
        Runtime.getRuntime().addShutdownHook(onLauncherExit);
        try {
            Map<String, String> jobEnv = new java.util.HashMap<>();
            jobEnv.put("UNICOMM_WORLD_SIZE", Integer.toString(spec.worldSize()));
            String storeHost = nodes == null ? InetAddress.getLoopbackAddress().getHostAddress() : nodes.masterAddr();
            jobEnv.put("UNICOMM_STORE", storeHost + ":" + port);
            jobEnv.put("UNICOMM_TOKEN", token);
            jobEnv.put("UNICOMM_TLS", Boolean.toString(spec.tls()));
            if (spec.backend() != null) jobEnv.put("UNICOMM_BACKEND", spec.backend());
            if (spec.commTimeout() != null)
                jobEnv.put("UNICOMM_TIMEOUT", spec.commTimeout().toMillis() + "ms");
            jobEnv.put(LauncherLink.ENV, "1");
            if (elastic) jobEnv.put("UNICOMM_ELASTIC", "true");
            if (Boolean.getBoolean("unicomm.verbose")) jobEnv.put("UNICOMM_VERBOSE", "1");
            byte[] keystoreBytes = null;
            if (spec.tls() && nodes != null) {
                // Every host's ranks must trust one key pair: the user hands the same keystore to every launcher.
                requireSharedKeystore(spec);
            } else if (spec.tls()) {
                // Made in memory and handed over through the ranks' pipes (LauncherLink): never a file, whenever the
                // launcher dies.
                String password = randomSecret();
                keystoreBytes = StoreTls.createSelfSignedKeystore(password.toCharArray());
                jobEnv.put("UNICOMM_TLS_KEYSTORE", StoreTls.FROM_LAUNCHER);
                jobEnv.put("UNICOMM_TLS_PASSWORD", password);
            }
            byte[] header = LauncherLink.header(keystoreBytes);
            List<String> command = command(spec);
            for (int r = 0; r < spec.ranks(); r++) {
                if (System.nanoTime() - jobDeadline >= 0) {
                    err.println(PREFIX + "job timeout of " + spec.jobTimeout().toMillis()
                            + " ms reached while starting rank " + r + " of " + spec.ranks()
                            + "; stopping the ranks started so far");
                    stopAll(ranks, Duration.ZERO);
                    List<Integer> codes = new ArrayList<>();
                    for (Process p : ranks) codes.add(p.isAlive() ? 137 : p.exitValue());
                    while (codes.size() < spec.ranks()) codes.add(-1); // never started
                    return new JobResult(TIMEOUT_EXIT_CODE, -1, true, codes);
                }
                ProcessBuilder pb = new ProcessBuilder(command);
                Map<String, String> env = pb.environment();
                if (!spec.tls() || nodes != null) {
                    env.remove("UNICOMM_TLS_KEYSTORE");
                    env.remove("UNICOMM_TLS_PASSWORD");
                }
                if (nodes != null && spec.tls()) {
                    env.put("UNICOMM_TLS_KEYSTORE", launcherEnv(spec, "UNICOMM_TLS_KEYSTORE"));
                    env.put("UNICOMM_TLS_PASSWORD", launcherEnv(spec, "UNICOMM_TLS_PASSWORD"));
                }
                env.putAll(spec.env());
                env.putAll(jobEnv);
                env.put("UNICOMM_RANK", Integer.toString(nodes == null ? r : nodes.rankOf(r, spec.ranks())));
                env.put("UNICOMM_LOCAL_RANK", Integer.toString(r));
                Process p;
                try {
                    p = pb.start();
                } catch (IOException e) {
                    throw new CommException(
                            "cannot start rank " + r + " with " + spec.java() + ": " + e.getMessage(), e);
                }
                synchronized (ranks) {
                    ranks.add(p);
                }
                // Never closed while the launcher lives: its end of stream tells the rank that the launcher is gone.
                OutputStream link = p.getOutputStream();
                try {
                    link.write(header);
                    link.flush();
                } catch (IOException e) {
                    // the rank died at once; await reports its exit code
                }
                links.add(link);
                pumps.add(pump(p.getInputStream(), out, r));
                pumps.add(pump(p.getErrorStream(), err, r));
            }
            JobResult result = await(spec, elastic, ranks, err, jobDeadline);
            drain(pumps);
            if (result.completedAfterLosingRanks())
                err.println(PREFIX + "job completed after losing ranks " + result.lostRanks() + " (exit code "
                        + result.exitCode() + ")");
            return result;
        } finally {
            stopAll(ranks, TERM_GRACE);
            try {
                Runtime.getRuntime().removeShutdownHook(onLauncherExit);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running or has run
            }
            for (OutputStream link : links) {
                try {
                    link.close();
                } catch (IOException ignored) {
                    // the rank is gone already
                }
            }
        }
    }

    /**
     * Whether the job runs in elastic mode: {@link JobSpec#elastic()}, or the ranks would see
     * {@code unicomm.elastic=true} anyway (as {@code CommConfig.elastic()} reads it) through
     * {@code UNICOMM_ELASTIC} in the spec's or the launcher's environment or a {@code -Dunicomm.elastic} JVM option.
     */
    public static boolean isElastic(JobSpec spec) {
        if (spec.elastic()) return true;
        String v = spec.env().containsKey("UNICOMM_ELASTIC")
                ? spec.env().get("UNICOMM_ELASTIC")
                : System.getenv("UNICOMM_ELASTIC");
        boolean on = Boolean.parseBoolean(v);
        for (String o : spec.jvmOptions())
            if (o.startsWith("-Dunicomm.elastic=")) on = Boolean.parseBoolean(o.substring(18));
        return on;
    }

    /** The command line every rank runs (the same for all; the environment tells them apart). */
    static List<String> command(JobSpec spec) {
        List<String> cmd = new ArrayList<>();
        cmd.add(spec.java());
        cmd.add("--enable-native-access=ALL-UNNAMED");
        // Ranks write UTF-8 and we read UTF-8, whatever the locale says.
        cmd.add("-Dstdout.encoding=UTF-8");
        cmd.add("-Dstderr.encoding=UTF-8");
        cmd.addAll(spec.jvmOptions());
        cmd.add("-cp");
        cmd.add(String.join(File.pathSeparator, spec.classpath()));
        cmd.add(RankMain.class.getName()); // ties the rank to this launcher, then runs the user's main
        cmd.add(spec.mainClass());
        cmd.addAll(spec.args());
        return cmd;
    }

    /**
     * Waits for every rank. After the first failure the rest are stopped once the kill grace is over,
     * except in elastic mode, where they may go on (the job timeout still applies).
     */
    private static JobResult await(
            JobSpec spec, boolean elastic, List<Process> ranks, PrintStream err, long jobDeadline) {
        int n = ranks.size();
        LinkedBlockingQueue<Integer> exited = new LinkedBlockingQueue<>();
        for (int r = 0; r < n; r++) {
            int rank = r;
            ranks.get(r).onExit().thenRun(() -> exited.add(rank));
        }
        Integer[] codes = new Integer[n];
        int done = 0, failedRank = -1, exitCode = 0;
        boolean timedOut = false, stopped = false;
        long killAt = Long.MAX_VALUE;
        List<Integer> failed = new ArrayList<>();
        while (done < n) {
            long wakeAt = Math.min(jobDeadline, killAt);
            Integer r;
            try {
                r = wakeAt == Long.MAX_VALUE
                        ? exited.take()
                        : exited.poll(Math.max(0, wakeAt - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                err.println(PREFIX + "interrupted; stopping every rank");
                stopAll(ranks, Duration.ZERO);
                throw new CommException("job launcher interrupted");
            }
            if (r == null) {
                if (!stopped && System.nanoTime() - jobDeadline >= 0) {
                    timedOut = true;
                    if (failedRank < 0) exitCode = TIMEOUT_EXIT_CODE;
                    err.println(PREFIX + "job timeout of " + spec.jobTimeout().toMillis()
                            + " ms reached; stopping every rank");
                } else if (!stopped) {
                    err.println(PREFIX + "stopping the ranks still running, "
                            + spec.killGrace().toMillis() + " ms after rank " + failedRank + " failed");
                }
                if (!stopped) {
                    stopped = true;
                    Thread.startVirtualThread(() -> stopAll(ranks, TERM_GRACE));
                }
                jobDeadline = killAt = Long.MAX_VALUE;
                continue;
            }
            done++;
            int code = ranks.get(r).exitValue();
            codes[r] = code;
            if (code == 0 || timedOut) continue;
            failed.add(r);
            if (failedRank >= 0) continue;
            exitCode = code;
            failedRank = r;
            int stoppedRank = firstStopped(ranks);
            if (stoppedRank >= 0) {
                failedRank = stoppedRank;
                err.println(PREFIX + "rank " + stoppedRank + " is stopped (SIGSTOP or a debugger: state T in /proc/"
                        + ranks.get(stoppedRank).pid() + "/stat), the likely cause: rank " + r + " exited with code "
                        + code
                        + " while it waited on it");
            }
            if (done == n) {
                err.println(PREFIX + "rank " + r + " exited with code " + code);
            } else if (elastic) {
                err.println(PREFIX + "rank " + r + " exited with code " + code
                        + "; elastic job: the other ranks may go on without it");
            } else {
                err.println(PREFIX + "rank " + r + " exited with code " + code + "; the other ranks get "
                        + spec.killGrace().toMillis() + " ms to stop before they are killed");
                killAt = System.nanoTime() + nanos(spec.killGrace());
            }
        }
        List<Integer> all = Arrays.asList(codes);
        if (elastic && !timedOut && !failed.isEmpty() && all.contains(0))
            return new JobResult(LOST_RANKS_EXIT_CODE, failedRank, false, all, failed);
        return new JobResult(exitCode, failedRank, timedOut, all);
    }

    /** The first live rank whose process is stopped (state T or t in /proc/PID/stat), or -1. */
    static int firstStopped(List<Process> ranks) {
        for (int r = 0; r < ranks.size(); r++) {
            Process p = ranks.get(r);
            if (!p.isAlive()) continue;
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(p.pid()), "stat"));
                int close = stat.lastIndexOf(')'); // the command name in parentheses may hold spaces
                if (close >= 0 && close + 2 < stat.length() && Character.toUpperCase(stat.charAt(close + 2)) == 'T')
                    return r;
            } catch (IOException | RuntimeException e) {
                // no /proc (not Linux) or the process just ended: not stopped
            }
        }
        return -1;
    }

    /**
     * Stops every live rank and its descendants: SIGTERM, then SIGKILL after {@code grace}.
     * Descendants are listed before their parent dies, since orphans are no longer found through it.
     */
    private static void stopAll(List<Process> ranks, Duration grace) {
        List<ProcessHandle> targets = new ArrayList<>();
        synchronized (ranks) {
            for (Process p : ranks) {
                p.descendants().forEach(targets::add);
                targets.add(p.toHandle());
            }
        }
        targets.removeIf(h -> !h.isAlive());
        if (targets.isEmpty()) return;
        if (!grace.isZero()) {
            targets.forEach(ProcessHandle::destroy);
            long deadline = System.nanoTime() + nanos(grace);
            for (ProcessHandle h : targets) {
                long left = deadline - System.nanoTime();
                if (left <= 0) break;
                try {
                    h.onExit().get(left, TimeUnit.NANOSECONDS);
                } catch (Exception e) {
                    break; // out of time (or interrupted): kill the rest
                }
            }
        }
        for (ProcessHandle h : targets) if (h.isAlive()) h.destroyForcibly();
        for (ProcessHandle h : targets) {
            try {
                h.onExit().get(5, TimeUnit.SECONDS);
            } catch (Exception e) {
                // a process that survives SIGKILL for 5 s is beyond our reach
            }
        }
    }

    /** Copies one stream of a rank, line by line, to {@code sink} with the rank as prefix. */
    private static Thread pump(InputStream stream, PrintStream sink, int rank) {
        String prefix = "[" + rank + "] ";
        return Thread.ofPlatform().daemon().name("unicomm-run-output-" + rank).start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) sink.println(prefix + line);
            } catch (IOException e) {
                // the rank is gone; what it printed has been copied
            }
            sink.flush();
        });
    }

    private static void drain(List<Thread> pumps) {
        long deadline = System.nanoTime() + DRAIN_LIMIT.toNanos();
        for (Thread t : pumps) {
            long left = deadline - System.nanoTime();
            try {
                if (left > 0) t.join(Duration.ofNanos(left));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** Nanoseconds of {@code d}, capped (~73 years) so that deadlines cannot overflow. */
    private static long nanos(Duration d) {
        return d.compareTo(Duration.ofNanos(Long.MAX_VALUE / 4)) > 0 ? Long.MAX_VALUE / 4 : d.toNanos();
    }

    /**
     * The secret every host's launcher gives its ranks: {@code UNICOMM_TOKEN} from the launcher's environment
     * (or the spec's), the same on every host, since no launcher can hand it to the others.
     */
    private static String sharedSecret(JobSpec spec) {
        String t = launcherEnv(spec, "UNICOMM_TOKEN");
        if (t == null || t.isBlank())
            throw new IllegalArgumentException(
                    "a job across " + spec.nodes().nnodes() + " hosts needs one secret on every host: "
                            + "export UNICOMM_TOKEN=$(openssl rand -hex 32) where you start the launchers, the same value on each host");
        if (t.length() < 16)
            throw new IllegalArgumentException(
                    "UNICOMM_TOKEN must be at least 16 characters (use openssl rand -hex 32)");
        return t;
    }

    private static void requireSharedKeystore(JobSpec spec) {
        if (launcherEnv(spec, "UNICOMM_TLS_KEYSTORE") == null || launcherEnv(spec, "UNICOMM_TLS_PASSWORD") == null)
            throw new IllegalArgumentException(
                    "--tls across hosts needs the same key pair on every host: set UNICOMM_TLS_KEYSTORE to a "
                            + "PKCS12 file present on each host and UNICOMM_TLS_PASSWORD to its password (docs/running-jobs.md, across hosts)");
    }

    /** A variable of the spec's environment, else of this launcher's. */
    private static String launcherEnv(JobSpec spec, String name) {
        String v = spec.env().get(name);
        return v != null ? v : System.getenv(name);
    }

    /** A port that was free on the loopback interface a moment ago (rank 0 binds it). */
    static int freeLoopbackPort() {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        } catch (IOException e) {
            throw new CommException("cannot find a free loopback port for the rendezvous store: " + e.getMessage(), e);
        }
    }

    private static final SecureRandom RANDOM = new SecureRandom();

    /** 256 random bits, URL-safe base64. */
    static String randomSecret() {
        byte[] b = new byte[32];
        RANDOM.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }
}
