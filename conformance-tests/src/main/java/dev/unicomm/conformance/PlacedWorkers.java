package dev.unicomm.conformance;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The worker JVMs of a job across hosts ({@link WorkerPlacement}), started by the kit itself: each rank's
 * command wrapped by the placement, its standard input and output the rank's control channel, its standard
 * error copied to the job's log with a {@code [rank] } prefix. The rendezvous store listens on rank 0's host
 * ({@link WorkerPlacement#rankZeroAddress()}); the ranks' environment is the launcher's job variables.
 */
final class PlacedWorkers {
    private final List<Process> processes = new ArrayList<>();
    private final PrintStream log;

    private PlacedWorkers(PrintStream log) {
        this.log = log;
    }

    /**
     * Starts every rank. {@code env} is the suite's and the kit's variables; {@code storePort} a port for
     * rank 0's store, {@code token} the job's secret.
     */
    static PlacedWorkers start(
            WorkerGroup.Spec spec, Map<String, String> env, int storePort, String token, PrintStream log) {
        PlacedWorkers w = new PlacedWorkers(log);
        WorkerPlacement place = spec.placement();
        Map<String, Integer> perHost = new HashMap<>();
        try {
            for (int r = 0; r < spec.ranks(); r++) {
                List<String> cmd = place.command(r, javaCommand(spec));
                ProcessBuilder pb = new ProcessBuilder(cmd);
                Map<String, String> e = pb.environment();
                e.putAll(env);
                e.put("UNICOMM_RANK", Integer.toString(r));
                e.put("UNICOMM_WORLD_SIZE", Integer.toString(spec.ranks()));
                e.put("UNICOMM_LOCAL_RANK", Integer.toString(perHost.merge(place.host(r), 1, Integer::sum) - 1));
                e.put("UNICOMM_STORE", place.rankZeroAddress() + ":" + storePort);
                e.put("UNICOMM_TOKEN", token);
                e.put("UNICOMM_TLS", "false");
                e.put("UNICOMM_BACKEND", spec.backend());
                e.put("UNICOMM_TIMEOUT", spec.commTimeout().toMillis() + "ms");
                e.put("UNICOMM_KIT_CONTROL", WorkerGroup.STDIO);
                log.println("[kit] rank " + r + " on " + place.host(r) + ": "
                        + String.join(
                                " ",
                                cmd.subList(0, cmd.size() - javaCommand(spec).size())) + " java ...");
                Process p = pb.start();
                w.processes.add(p);
                int rank = r;
                pump(p.getErrorStream(), log, rank);
                p.onExit().thenRun(() -> log.println("[kit] rank " + rank + " exited with code " + p.exitValue()));
            }
            return w;
        } catch (IOException | RuntimeException e) {
            w.kill();
            throw new IllegalStateException("cannot start the workers through " + place + ": " + e.getMessage(), e);
        }
    }

    /** The worker JVM's command line (the same on every host: the class path must exist there). */
    static List<String> javaCommand(WorkerGroup.Spec spec) {
        List<String> cmd = new ArrayList<>();
        cmd.add(dev.unicomm.launch.JobSpec.currentJava());
        cmd.add("-Dstdout.encoding=UTF-8");
        cmd.add("-Dstderr.encoding=UTF-8");
        // The VM's own messages would otherwise land in the control channel (unified logging writes warnings to
        // stdout).
        cmd.add("-XX:+DisplayVMOutputToStderr");
        cmd.add("-Xlog:disable");
        cmd.add("-Xlog:all=warning:stderr");
        // Hosts in PID namespaces of one machine may share /tmp, where equal PIDs' perf-data files collide.
        cmd.add("-XX:-UsePerfData");
        cmd.addAll(spec.jvmArgs());
        cmd.add("-cp");
        cmd.add(String.join(File.pathSeparator, spec.classPath().split(File.pathSeparator)));
        cmd.add(KitWorker.class.getName());
        return cmd;
    }

    InputStream control(int rank) {
        return processes.get(rank).getInputStream();
    }

    OutputStream commands(int rank) {
        return processes.get(rank).getOutputStream();
    }

    /** Whether rank {@code rank}'s wrapper (and so, normally, its worker) still runs. */
    boolean alive(int rank) {
        return rank < processes.size() && processes.get(rank).isAlive();
    }

    /** Waits up to {@code millis} for rank {@code rank}'s wrapper to end. */
    void awaitExit(int rank, long millis) {
        if (rank >= processes.size()) return;
        try {
            processes.get(rank).waitFor(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Whether every worker has exited. */
    boolean allExited() {
        return processes.stream().noneMatch(Process::isAlive);
    }

    /**
     * Kills every worker: the wrappers and everything below them (a wrapper that enters a namespace keeps
     * its worker as a child, which this machine's process table still shows), after closing their inputs.
     */
    void kill() {
        List<ProcessHandle> targets = new ArrayList<>();
        for (Process p : processes) {
            p.descendants().forEach(targets::add);
            targets.add(p.toHandle());
            try {
                p.getOutputStream().close(); // a worker exits when its input ends, wherever it runs
            } catch (IOException ignored) {
                // gone already
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

    private static void pump(InputStream stream, PrintStream sink, int rank) {
        Thread.ofPlatform().daemon().name("kit-stderr-rank" + rank).start(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) sink.println("[" + rank + "] " + line);
            } catch (IOException e) {
                // the worker is gone; what it printed has been copied
            }
        });
    }
}
