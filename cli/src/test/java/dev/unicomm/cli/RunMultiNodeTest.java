package dev.unicomm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.testsupport.ConsoleCapture.Captured;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 46: torchrun's multi-node options. Two launchers on this one host make one job of one host (so shm
 * runs it): ranks are numbered node-major, the store is where --master-addr says, the secret is shared.
 */
@Timeout(600)
class RunMultiNodeTest {
    static final String TOKEN = "a-shared-secret-of-the-job-0123456789";

    @Test
    void twoLaunchersMakeOneJobNumberedNodeMajor() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        List<Process> launchers = new ArrayList<>();
        for (int node = 0; node < 2; node++)
            launchers.add(launcher(
                    MultiNodeArgs.concat(
                            MultiNodeArgs.node(2, node, 2, "127.0.0.1", port),
                            List.of("--backend", "shm", "--timeout", "120s", "--", TopologyRank.class.getName())),
                    TOKEN));
        List<String> outs = new ArrayList<>();
        for (Process p : launchers) {
            assertTrue(p.waitFor(300, TimeUnit.SECONDS), "launcher did not finish");
            outs.add(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        }
        for (int node = 0; node < 2; node++) {
            assertEquals(0, launchers.get(node).exitValue(), outs.get(node));
            for (int local = 0; local < 2; local++) {
                int rank = node * 2 + local;
                assertTrue(
                        outs.get(node)
                                .contains("[" + local + "] RANK " + rank + "/4 local " + rank
                                        + "/4 host 0/1 sum 6 nodesum 6 env-local " + local),
                        "node " + node + " local " + local + ":\n" + outs.get(node));
            }
        }
    }

    @Test
    void aJobAcrossHostsWithoutASharedSecretIsOneLineBeforeAnyRankStarts() throws Exception {
        Process p = launcher(
                List.of(
                        "--nnodes",
                        "2",
                        "--node-rank",
                        "1",
                        "-n",
                        "1",
                        "--master-addr",
                        "10.77.0.1",
                        "--",
                        TopologyRank.class.getName()),
                null);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(2, p.exitValue(), out);
        assertTrue(
                out.startsWith(
                        "unicomm run: a job across 2 hosts needs one secret on every host: export UNICOMM_TOKEN="),
                out);
        assertEquals(1, out.lines().count(), out);
    }

    @Test
    void nodeLayoutMistakesAreOneLine() {
        Captured r =
                CliRunner.line("run --nnodes 2 --node-rank 2 -n 1 --master-addr h0 -- " + TopologyRank.class.getName());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("--node-rank must be in [0, 2) for --nnodes 2, got 2"), r.err());
        r = CliRunner.run("run", "--nnodes", "2", "-n", "1", "--", TopologyRank.class.getName());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("a job of 2 nodes needs --master-addr"), r.err());
        r = CliRunner.line("run --nnodes 2 -n 1 --rdzv-endpoint nohost -- " + TopologyRank.class.getName());
        assertTrue(r.err().contains("--rdzv-endpoint must be ADDR:PORT, got 'nohost'"), r.err());
    }

    /** A second launcher claiming a node rank that is taken: one of the two is turned away in one line, the job completes. */
    @Test
    void aSecondLauncherForOneNodeRankIsTurnedAwayInOneLine() throws Exception {
        int port = freePort();
        Process node0 = launcher(node(0, 2, port, "20s"), TOKEN);
        Process node1 = launcher(node(1, 2, port, "20s"), TOKEN), again = launcher(node(1, 2, port, "20s"), TOKEN);
        String out0 = finish(node0), out1 = finish(node1), outAgain = finish(again);
        assertEquals(0, node0.exitValue(), out0);
        String both = out1 + outAgain;
        assertEquals(
                1,
                both.lines()
                        .filter(l -> l.contains("FAILED") && l.contains("rank 1 has already joined this job"))
                        .count(),
                both);
        assertTrue(
                node1.exitValue() == 0 ^ again.exitValue() == 0,
                "exactly one node-1 launcher ran the job's rank 1:\n" + both);
    }

    /** Launchers that disagree on --nnodes: the odd one's ranks are turned away at once, naming both sizes. */
    @Test
    void launchersThatDisagreeOnTheNodeCountAreToldInOneLine() throws Exception {
        int port = freePort();
        Process node0 = launcher(node(0, 2, port, "15s"), TOKEN);
        Process odd = launcher(node(1, 3, port, "15s"), TOKEN);
        long start = System.nanoTime();
        String outOdd = finish(odd);
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(60), "within seconds");
        assertTrue(
                outOdd.contains("FAILED") && outOdd.contains("rank 1 claims a job of 3 ranks; this job has 2"), outOdd);
        String out0 = finish(node0);
        assertTrue(node0.exitValue() != 0, "node 0's job lacks its rank 1:\n" + out0);
    }

    /** A host with another secret: its ranks are turned away in one line that never prints either secret. */
    @Test
    void aHostWithAnotherTokenIsToldInOneLine() throws Exception {
        int port = freePort();
        Process node0 = launcher(node(0, 2, port, "15s"), TOKEN);
        Process stranger = launcher(node(1, 2, port, "15s"), TOKEN.replace('a', 'b'));
        String out = finish(stranger);
        assertTrue(out.contains("FAILED") && out.contains("rank 1 presented a wrong token"), out);
        assertTrue(!out.contains(TOKEN) && !out.contains(TOKEN.replace('a', 'b')), out);
        finish(node0);
        assertTrue(node0.exitValue() != 0);
    }

    private static List<String> node(int rank, int nnodes, int port, String wait) {
        return MultiNodeArgs.concat(
                MultiNodeArgs.node(nnodes, rank, 1, "127.0.0.1", port),
                List.of(
                        "--backend",
                        "shm",
                        "--wait-timeout",
                        wait,
                        "--timeout",
                        "120s",
                        "--",
                        TopologyRank.class.getName()));
    }

    private static String finish(Process p) throws Exception {
        assertTrue(p.waitFor(180, TimeUnit.SECONDS), "launcher did not finish");
        return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** {@code unicomm run ARGS} in a JVM of its own (the secret comes from the launcher's environment, as on a real host). */
    static Process launcher(List<String> args, String token) throws IOException {
        List<String> cmd = MultiNodeArgs.concat(MultiNodeArgs.javaRun(), args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove("UNICOMM_TOKEN");
        if (token != null) pb.environment().put("UNICOMM_TOKEN", token);
        return pb.start();
    }
}
