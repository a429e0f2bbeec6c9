package dev.unicomm.backend.ucx.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.unicomm.backend.ucx.UcxAvailable;
import dev.unicomm.testsupport.hosts.MultiHost;
import dev.unicomm.testsupport.hosts.TestBed;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The portable MoE's two-level normal mode (issue 48) on a real multi-host job: 2 test-bed hosts x 2 ranks
 * over backend-ucx ({@code UCX_TLS=tcp}), where the topology makes {@code auto} pick it. The kit's normal-mode
 * rules against the reference; with {@code -Dunicomm.moe.bench=true}, {@link HostsMoeRank}'s bench of both
 * algorithms (DeepSeek-V3's shape, {@code -Dunicomm.moe.bench.tokens}, default 128 tokens per rank) and of the
 * world's allgather both ways. {@code -Dunicomm.bed.ucx_tls} sets {@code UCX_TLS} (default tcp; {@code tcp,sm,self}
 * gives the ranks of one host UCX's shared memory, as real hosts would have).
 */
@MultiHost(hosts = 2, ttlSeconds = 900)
class UcxTwoLevelMoeTest {
    private static final long LIMIT_SECONDS = 400;

    @BeforeAll
    static void needsUcx() {
        UcxAvailable.assume();
    }

    @Test
    void kitNormalModeRulesPassWithTwoLevelsOnTwoHostsOfTwoRanks(TestBed bed) throws Exception {
        List<String> out = job(bed, "check");
        for (int r = 0; r < 4; r++) {
            int rank = r;
            assertTrue(out.stream().anyMatch(l -> l.startsWith("PASS rank=" + rank)), String.join("\n", out));
        }
    }

    @Test
    void benchmarkBothAlgorithms(TestBed bed) throws Exception {
        assumeTrue(Boolean.getBoolean("unicomm.moe.bench"), "a benchmark: run with -Dunicomm.moe.bench=true");
        String load = Files.readString(Path.of("/proc/loadavg")).strip();
        List<String> out = job(
                bed,
                "bench",
                System.getProperty("unicomm.moe.bench.tokens", "128"),
                System.getProperty("unicomm.moe.bench.iters", "5"));
        System.out.println("loadavg before " + load + ", after "
                + Files.readString(Path.of("/proc/loadavg")).strip());
        out.stream().filter(l -> l.startsWith("MOE ")).forEach(System.out::println);
        assertEquals(16, out.stream().filter(l -> l.startsWith("MOE ")).count(), String.join("\n", out));
    }

    /** The world's allgather, flat and two-level in separate jobs (order flat, two, two, flat: drift shows), per block size. */
    @Test
    void benchmarkAllgatherBothWays(TestBed bed) throws Exception {
        assumeTrue(Boolean.getBoolean("unicomm.moe.bench"), "a benchmark: run with -Dunicomm.moe.bench=true");
        String load = Files.readString(Path.of("/proc/loadavg")).strip();
        List<String> lines = new ArrayList<>();
        for (String two : List.of("false", "true", "true", "false"))
            for (String bytes : List.of("65536", "1048576"))
                job(bed, Map.of("UNICOMM_COLLECTIVES_TWO_LEVEL", two), "allgather", bytes, "7").stream()
                        .filter(l -> l.startsWith("AG "))
                        .forEach(lines::add);
        System.out.println("loadavg before " + load + ", after "
                + Files.readString(Path.of("/proc/loadavg")).strip());
        lines.forEach(System.out::println);
        assertEquals(32, lines.size(), String.join("\n", lines));
    }

    /** The world's FP32 allreduce and reduce-scatter, flat and two-level in separate jobs (order flat, two, two, flat), per size. */
    @Test
    void benchmarkReductionsBothWays(TestBed bed) throws Exception {
        assumeTrue(Boolean.getBoolean("unicomm.moe.bench"), "a benchmark: run with -Dunicomm.moe.bench=true");
        String load = Files.readString(Path.of("/proc/loadavg")).strip();
        List<String> lines = new ArrayList<>();
        for (String two : List.of("false", "true", "true", "false"))
            for (String bytes : List.of("262144", "4194304"))
                job(bed, Map.of("UNICOMM_COLLECTIVES_TWO_LEVEL", two), "reduce", bytes, "7").stream()
                        .filter(l -> l.startsWith("AR ") || l.startsWith("RS "))
                        .forEach(lines::add);
        System.out.println("loadavg before " + load + ", after "
                + Files.readString(Path.of("/proc/loadavg")).strip());
        lines.forEach(System.out::println);
        assertEquals(64, lines.size(), String.join("\n", lines));
    }

    private static List<String> job(TestBed bed, String... args) throws Exception {
        return job(bed, Map.of(), args);
    }

    /** Ranks 0-1 on node0, 2-3 on node1, rank 0's store on node0's address; every line they printed. */
    private static List<String> job(TestBed bed, Map<String, String> extraEnv, String... args) throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        String cp = System.getProperty("java.class.path");
        String store =
                bed.address(0) + ":" + (20_000 + ThreadLocalRandom.current().nextInt(20_000));
        String token = HexFormat.of().formatHex(SecureRandom.getSeed(16));
        List<Process> procs = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        try {
            for (int r = 0; r < 4; r++) {
                List<String> cmd = new ArrayList<>(List.of(
                        java,
                        "--enable-native-access=ALL-UNNAMED",
                        "--add-modules",
                        "jdk.incubator.vector",
                        "-Xmx768m",
                        "-XX:+UseSerialGC",
                        "-cp",
                        cp,
                        HostsMoeRank.class.getName()));
                cmd.addAll(List.of(args));
                ProcessBuilder pb = bed.command(r / 2, cmd).redirectErrorStream(true);
                pb.environment()
                        .putAll(Map.of(
                                "UNICOMM_RANK",
                                Integer.toString(r),
                                "UNICOMM_WORLD_SIZE",
                                "4",
                                "UNICOMM_STORE",
                                store,
                                "UNICOMM_TOKEN",
                                token,
                                "UNICOMM_BACKEND",
                                "ucx",
                                "UNICOMM_HEAP_SIZE",
                                "96M",
                                "UNICOMM_TIMEOUT",
                                "120s",
                                "UCX_TLS",
                                System.getProperty("unicomm.bed.ucx_tls", "tcp"),
                                "UCX_NET_DEVICES",
                                "eth0"));
                pb.environment().putAll(extraEnv);
                procs.add(pb.start());
            }
            for (int r = 0; r < 4; r++) {
                Process p = procs.get(r);
                boolean done = p.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS);
                String text = done
                        ? new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8)
                        : "(still running after " + LIMIT_SECONDS + " s)";
                text.lines().forEach(lines::add);
                assertTrue(done, "rank " + r + " hung");
                assertEquals(0, p.exitValue(), "rank " + r + " failed:\n" + text);
            }
            return lines;
        } finally {
            for (Process p : procs) p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
