package dev.unicomm.backend.ucx.hosts;

import dev.unicomm.testsupport.hosts.TestBed;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/** A JVM started on a bed host whose output lines are collected while it runs (so a test can wait for a line). */
final class BedProcess {
    final Process process;
    final List<String> lines = new CopyOnWriteArrayList<>();

    private BedProcess(Process process) {
        this.process = process;
        Thread.ofVirtual().start(() -> {
            try (BufferedReader r =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) lines.add(l);
            } catch (IOException ignored) {
                // the process ended
            }
        });
    }

    /** Starts {@code main} on host {@code host} with {@code env} and {@code args}. */
    static BedProcess start(TestBed bed, int host, String main, Map<String, String> env, String... args)
            throws IOException {
        String java = ProcessHandle.current().info().command().orElseThrow();
        List<String> cmd = new ArrayList<>(List.of(
                java,
                "--enable-native-access=ALL-UNNAMED",
                "-Xmx256m",
                "-XX:+UseSerialGC",
                "-cp",
                System.getProperty("java.class.path"),
                main));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = bed.command(host, cmd).redirectErrorStream(true);
        pb.environment().putAll(env);
        return new BedProcess(pb.start());
    }

    /** Rank environments of a {@code size}-rank ucx job whose store is on host 0, UCX over TCP on the bed's eth0. */
    static List<Map<String, String>> job(TestBed bed, int size, String timeout) {
        int port = 20_000 + ThreadLocalRandom.current().nextInt(20_000);
        String token = HexFormat.of().formatHex(SecureRandom.getSeed(16));
        List<Map<String, String>> out = new ArrayList<>();
        for (int r = 0; r < size; r++) {
            Map<String, String> env = new HashMap<>(overTheBed());
            env.put("UNICOMM_RANK", Integer.toString(r));
            env.put("UNICOMM_WORLD_SIZE", Integer.toString(size));
            env.put("UNICOMM_STORE", bed.address(0) + ":" + port);
            env.put("UNICOMM_TOKEN", token);
            env.put("UNICOMM_BACKEND", "ucx");
            env.put("UNICOMM_HEAP_SIZE", "16M");
            env.put("UNICOMM_TIMEOUT", timeout);
            out.add(env);
        }
        return out;
    }

    /** TCP only, on the bed's interface. */
    static Map<String, String> overTheBed() {
        return Map.of("UCX_TLS", "tcp", "UCX_NET_DEVICES", "eth0");
    }

    /** Waits up to {@code seconds} for a line starting with {@code prefix}; returns it or null. */
    String await(String prefix, long seconds) throws InterruptedException {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < end) {
            for (String l : lines) if (l.startsWith(prefix)) return l;
            if (!process.isAlive()) {
                Thread.sleep(200); // the reader drains the last lines
                for (String l : lines) if (l.startsWith(prefix)) return l;
                return null;
            }
            Thread.sleep(20);
        }
        return null;
    }

    /** Every line so far. */
    String output() {
        return String.join("\n", lines);
    }

    /** Kills the process and everything it started (the JVM under the bed's exec wrapper). */
    void kill() throws InterruptedException {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }

    /** Sends {@code signal} (e.g. STOP) to the JVM under the bed's exec wrapper and to the wrapper. */
    void signal(String signal) throws IOException, InterruptedException {
        List<String> pids = new ArrayList<>();
        process.descendants().forEach(h -> pids.add(Long.toString(h.pid())));
        pids.add(Long.toString(process.pid()));
        List<String> cmd = new ArrayList<>(List.of("kill", "-" + signal));
        cmd.addAll(pids);
        new ProcessBuilder(cmd).inheritIO().start().waitFor(10, TimeUnit.SECONDS);
    }
}
