package dev.unicomm.testsupport.hosts;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Hosts on one machine for multi-host tests, over {@code scripts/testbed.sh}: each host has its own
 * network namespace (address {@code 10.77.0.(i+1)} on a private bridge that reaches nothing else), its own
 * hostname {@code node<i>}, PID and IPC namespaces and a private {@code /dev/shm}. {@link #close()} removes
 * them; if this JVM dies first, the script's watchdog removes them when it notices (within a second) or
 * when the bed's time to live ends.
 */
public final class TestBed implements AutoCloseable {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Duration SCRIPT_LIMIT = Duration.ofSeconds(60);

    private final Path script;
    private final String name;
    private final int hosts;
    private boolean closed;

    private TestBed(Path script, String name, int hosts) {
        this.script = script;
        this.name = name;
        this.hosts = hosts;
    }

    /** Why no bed can be made here, or empty when one can (root on Linux with ip, unshare and nsenter). */
    public static Optional<String> unavailableReason() {
        if (!System.getProperty("os.name", "").toLowerCase().contains("linux"))
            return Optional.of("multi-host tests need Linux namespaces");
        Optional<Path> script = findScript();
        if (script.isEmpty())
            return Optional.of(
                    "scripts/testbed.sh not found above " + Path.of("").toAbsolutePath());
        if (!"root".equals(System.getProperty("user.name")))
            return Optional.of("multi-host tests need root (network, UTS, PID and mount namespaces); CI runs as root");
        for (String tool : List.of("ip", "unshare", "nsenter"))
            if (!onPath(tool)) return Optional.of("multi-host tests need '" + tool + "' (iproute2, util-linux)");
        return Optional.empty();
    }

    /** Brings up {@code hosts} hosts that live at most {@code ttl}; owned by this JVM. */
    public static TestBed up(int hosts, Duration ttl) {
        unavailableReason().ifPresent(r -> {
            throw new IllegalStateException(r);
        });
        String name = "tb" + Long.toString(RANDOM.nextLong() >>> 24, 36).substring(0, 6);
        TestBed bed = new TestBed(findScript().orElseThrow(), name, hosts);
        bed.script(
                SCRIPT_LIMIT,
                "up",
                Integer.toString(hosts),
                "--name",
                name,
                "--ttl",
                Long.toString(Math.max(1, ttl.toSeconds())),
                "--owner",
                Long.toString(ProcessHandle.current().pid()));
        return bed;
    }

    public String name() {
        return name;
    }

    public int hosts() {
        return hosts;
    }

    /** The hostname of host {@code i} inside its namespaces. */
    public String hostName(int i) {
        return "node" + check(i);
    }

    /** The address of host {@code i} on the bed's bridge. */
    public String address(int i) {
        return "10.77.0." + (check(i) + 1);
    }

    /** A command that runs {@code command} on host {@code i}, for the caller to start. */
    public ProcessBuilder command(int i, List<String> command) {
        List<String> cmd = new ArrayList<>(List.of(script.toString(), "exec", hostName(i), "--name", name, "--"));
        cmd.addAll(command);
        return new ProcessBuilder(cmd);
    }

    /**
     * Runs {@code command} on host {@code i} to its end (killed after {@code limit}) and returns its exit
     * code and merged output.
     */
    public Ran run(int i, Duration limit, String... command) {
        return exec(command(i, List.of(command)), limit);
    }

    /** An exit code and what the command printed (stdout and stderr merged). */
    public record Ran(int exitCode, String output) {}

    /** Names of the bed's network namespaces that exist now (for leak checks). */
    public List<String> namespaces() {
        Ran r = exec(new ProcessBuilder("ip", "netns", "list"), SCRIPT_LIMIT);
        return r.output()
                .lines()
                .map(l -> l.split(" ")[0])
                .filter(n -> n.startsWith(name + "-"))
                .toList();
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        script(SCRIPT_LIMIT, "down", "--name", name);
    }

    private int check(int i) {
        if (i < 0 || i >= hosts) throw new IllegalArgumentException("host must be in [0, " + hosts + "), got " + i);
        return i;
    }

    private void script(Duration limit, String... args) {
        List<String> cmd = new ArrayList<>(List.of(script.toString()));
        cmd.addAll(List.of(args));
        Ran r = exec(new ProcessBuilder(cmd), limit);
        if (r.exitCode() != 0)
            throw new IllegalStateException("testbed.sh " + String.join(" ", args) + " failed: "
                    + r.output().strip());
    }

    private static Ran exec(ProcessBuilder pb, Duration limit) {
        pb.redirectErrorStream(true);
        try {
            Process p = pb.start();
            p.getOutputStream().close();
            // Read on another thread so that the limit holds even while the command keeps its output open.
            var output = new java.util.concurrent.CompletableFuture<String>();
            Thread.ofVirtual().start(() -> {
                try {
                    output.complete(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
                } catch (IOException e) {
                    output.complete("");
                }
            });
            if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
                return new Ran(124, output.getNow("") + "\n(killed after " + limit.toMillis() + " ms)");
            }
            return new Ran(p.exitValue(), output.get(5, TimeUnit.SECONDS));
        } catch (IOException | java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            return new Ran(127, "cannot run " + pb.command() + ": " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Ran(130, "interrupted");
        }
    }

    private static boolean onPath(String tool) {
        for (String d : System.getenv()
                .getOrDefault("PATH", "/usr/sbin:/usr/bin:/sbin:/bin")
                .split(":")) if (Files.isExecutable(Path.of(d, tool))) return true;
        return Files.isExecutable(Path.of("/usr/sbin", tool)) || Files.isExecutable(Path.of("/sbin", tool));
    }

    /** The script, in the repository that holds the working directory (tests run in a module's folder). */
    static Optional<Path> findScript() {
        for (Path d = Path.of("").toAbsolutePath(); d != null; d = d.getParent()) {
            Path s = d.resolve("scripts/testbed.sh");
            if (Files.isExecutable(s)) return Optional.of(s);
        }
        return Optional.empty();
    }
}
