package dev.unicomm.backend.ucx.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.unicomm.backend.ucx.UcxAvailable;
import dev.unicomm.testsupport.hosts.MultiHost;
import dev.unicomm.testsupport.hosts.TestBed;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * backend-ucx across two hosts of a {@link TestBed} (network namespaces on a bridge, 10.77.0.1/.2):
 * ranks started by hand, half on each host, rank 0's rendezvous store on its bed address, UCX over
 * {@code UCX_TLS=tcp} on the bed's eth0. {@link HostsRank} checks RMA, atomics, signals, a team and
 * a get from a busy target; {@link #benchmarkAgainstUcxPerftest} (only with {@code -Dunicomm.ucx.bench=true})
 * prints latency and bandwidth beside {@code ucx_perftest} in the same bed.
 */
@MultiHost(hosts = 2, ttlSeconds = 600)
class UcxTwoHostsTest {
    private static final long LIMIT_SECONDS = 180;

    @BeforeAll
    static void needsUcx() {
        UcxAvailable.assume();
    }

    @Test
    void rmaAtomicsSignalsAndTeamsAcrossTwoHostsWithTwoRanksEach(TestBed bed) throws Exception {
        List<String> out = job(bed, 4, HostsRank.class.getName());
        for (int r = 0; r < 4; r++) {
            int rank = r;
            assertTrue(
                    out.stream().anyMatch(l -> l.startsWith("PASS rank=" + rank + " host=node" + (rank < 2 ? 0 : 1))),
                    "rank " + r + " did not pass on node" + (r < 2 ? 0 : 1) + ":\n" + String.join("\n", out));
        }
    }

    @Test
    void aRankThatDiesOnTheOtherHostAbortsTheSurvivorWithinTheTimeout(TestBed bed) throws Exception {
        survivorOfADeadRank(bed, "rma");
    }

    /** As above, the survivor waiting in the world barrier (UCX messages, no store): the store names the dead rank. */
    @Test
    void aRankThatDiesBetweenBarriersAbortsTheSurvivorWaitingInOne(TestBed bed) throws Exception {
        survivorOfADeadRank(bed, "barrier");
    }

    private static void survivorOfADeadRank(TestBed bed, String mode) throws Exception {
        List<Process> procs = start(bed, 2, HostsFault.class.getName(), mode);
        try {
            Process survivor = procs.get(0), victim = procs.get(1);
            assertTrue(victim.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS), "rank 1 did not die");
            assertEquals(3, victim.exitValue(), "rank 1 should have halted with 3:\n" + output(victim));
            assertTrue(survivor.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS), "rank 0 hung after rank 1 died");
            String out = output(survivor);
            System.out.println("rank 0 on " + bed.hostName(0) + " (" + mode + "):\n" + out);
            assertEquals(0, survivor.exitValue(), out);
            assertTrue(out.contains("ABORTED failedRank=1 after "), out);
            long abortedMs = Long.parseLong(out.replaceAll("(?s).*ABORTED failedRank=1 after (\\d+) ms.*", "$1"));
            assertTrue(abortedMs < 60_000, "aborted only after " + abortedMs + " ms (the timeout is 60 s)");
            assertTrue(out.contains("CLOSED after "), out);
        } finally {
            for (Process p : procs) p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void benchmarkAgainstUcxPerftest(TestBed bed) throws Exception {
        assumeTrue(Boolean.getBoolean("unicomm.ucx.bench"), "a benchmark: run with -Dunicomm.ucx.bench=true");
        List<String> report = new ArrayList<>(job(bed, 2, HostsBench.class.getName()).stream()
                .filter(l -> l.startsWith("BENCH"))
                .toList());
        report.add(perftest(bed, "ucp_get", 8, 10_000));
        report.add(perftest(bed, "ucp_put_bw", 64 << 10, 2_000));
        report.add(perftest(bed, "ucp_put_bw", 1 << 20, 500));
        report.add("loadavg " + Files.readString(Path.of("/proc/loadavg")).strip());
        report.forEach(System.out::println);
        assertTrue(report.stream().anyMatch(l -> l.contains("target=busy-java")), String.join("\n", report));
    }

    /** Starts {@code ranks} ranks of {@code main}, the first half on node0 and the rest on node1. */
    private static List<Process> start(TestBed bed, int ranks, String main, String... args) throws IOException {
        String java = ProcessHandle.current().info().command().orElseThrow();
        String cp = System.getProperty("java.class.path");
        int port = 20_000 + ThreadLocalRandom.current().nextInt(20_000);
        String token = HexFormat.of().formatHex(SecureRandom.getSeed(16));
        List<Process> procs = new ArrayList<>();
        try {
            for (int r = 0; r < ranks; r++) {
                ProcessBuilder pb = bed.command(
                                r < ranks / 2 ? 0 : 1,
                                Stream.concat(
                                                Stream.of(
                                                        java,
                                                        "--enable-native-access=ALL-UNNAMED",
                                                        "-Xmx256m",
                                                        "-XX:+UseSerialGC",
                                                        "-cp",
                                                        cp,
                                                        main),
                                                Stream.of(args))
                                        .toList())
                        .redirectErrorStream(true);
                pb.environment().putAll(rankEnv(r, ranks, bed.address(0) + ":" + port, token));
                procs.add(pb.start());
            }
            return procs;
        } catch (IOException | RuntimeException e) {
            for (Process p : procs) p.destroyForcibly();
            throw e;
        }
    }

    private static String output(Process p) throws IOException {
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    /** Runs {@code ranks} ranks of {@code main} (see {@link #start}) to their end; returns every line they printed. */
    private static List<String> job(TestBed bed, int ranks, String main) throws Exception {
        List<Process> procs = start(bed, ranks, main);
        List<String> lines = new ArrayList<>();
        try {
            for (int r = 0; r < ranks; r++) {
                Process p = procs.get(r);
                boolean done = p.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS);
                String text = done
                        ? new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                        : "(still running after " + LIMIT_SECONDS + " s)";
                text.lines().forEach(lines::add);
                if (r == 0) System.out.println("rank 0 on " + bed.hostName(0) + ":\n" + text);
                assertTrue(done, "rank " + r + " hung");
                assertEquals(0, p.exitValue(), "rank " + r + " failed:\n" + text);
            }
            return lines;
        } finally {
            for (Process p : procs) p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static Map<String, String> rankEnv(int rank, int size, String store, String token) {
        Map<String, String> env = new HashMap<>();
        env.put("UNICOMM_RANK", Integer.toString(rank));
        env.put("UNICOMM_WORLD_SIZE", Integer.toString(size));
        env.put("UNICOMM_STORE", store);
        env.put("UNICOMM_TOKEN", token);
        env.put("UNICOMM_BACKEND", "ucx");
        env.put("UNICOMM_HEAP_SIZE", "16M");
        env.put("UNICOMM_TIMEOUT", "60s");
        env.putAll(ucxOverTheBed());
        if (rank == 0) env.put("UNICOMM_UCX_PRINT_INFO", "true"); // the log shows which transport each endpoint uses
        return env;
    }

    /** TCP only, on the bed's interface: the emulated RMA path whose completion needs the target's progress. */
    private static Map<String, String> ucxOverTheBed() {
        return Map.of("UCX_TLS", "tcp", "UCX_NET_DEVICES", "eth0");
    }

    /** One {@code ucx_perftest} pair: server on node1, client on node0 towards node1's address; returns the client's result line. */
    private static String perftest(TestBed bed, String test, int size, int iters)
            throws IOException, InterruptedException {
        int port = 30_000 + ThreadLocalRandom.current().nextInt(10_000);
        List<String> common = List.of(
                "-t", test, "-s", Integer.toString(size), "-n", Integer.toString(iters), "-p", Integer.toString(port));
        List<String> server = new ArrayList<>(List.of("ucx_perftest"));
        server.addAll(common);
        ProcessBuilder sb = bed.command(1, server).redirectErrorStream(true);
        sb.environment().putAll(ucxOverTheBed());
        Process s = sb.start();
        try {
            Thread.sleep(1500); // the server listens
            List<String> client = new ArrayList<>(List.of("ucx_perftest", bed.address(1)));
            client.addAll(common);
            ProcessBuilder cb = bed.command(0, client).redirectErrorStream(true);
            cb.environment().putAll(ucxOverTheBed());
            Process c = cb.start();
            boolean done = c.waitFor(120, TimeUnit.SECONDS);
            String text = new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(done, "ucx_perftest " + test + " hung");
            List<String> rows =
                    text.lines().filter(l -> l.matches("^\\s*Final:.*")).toList();
            return "PERFTEST " + test + " size=" + size + " iters=" + iters + " "
                    + (rows.isEmpty() ? "no Final line:\n" + text : rows.get(0).strip())
                    + "  [columns: iterations, latency typical/avg/overall usec, bandwidth avg/overall MB/s, msg rate avg/overall]";
        } finally {
            s.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
