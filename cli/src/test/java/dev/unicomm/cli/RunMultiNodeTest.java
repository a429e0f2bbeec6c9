package dev.unicomm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.testsupport.ConsoleCapture.Captured;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
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

    @Test void twoLaunchersMakeOneJobNumberedNodeMajor() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        List<Process> launchers = new ArrayList<>();
        for (int node = 0; node < 2; node++)
            launchers.add(launcher(List.of("--nnodes", "2", "--node-rank", "" + node, "--nproc-per-node", "2", "--master-addr", "127.0.0.1",
                    "--master-port", "" + port, "--backend", "shm", "--timeout", "120s", "--", TopologyRank.class.getName()), TOKEN));
        List<String> outs = new ArrayList<>();
        for (Process p : launchers) {
            assertTrue(p.waitFor(300, TimeUnit.SECONDS), "launcher did not finish");
            outs.add(new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
        }
        for (int node = 0; node < 2; node++) {
            assertEquals(0, launchers.get(node).exitValue(), outs.get(node));
            for (int local = 0; local < 2; local++) {
                int rank = node * 2 + local;
                assertTrue(outs.get(node).contains("[" + local + "] RANK " + rank + "/4 local " + rank + "/4 host 0/1 sum 6 nodesum 6 env-local " + local),
                        "node " + node + " local " + local + ":\n" + outs.get(node));
            }
        }
    }

    @Test void aJobAcrossHostsWithoutASharedSecretIsOneLineBeforeAnyRankStarts() throws Exception {
        Process p = launcher(List.of("--nnodes", "2", "--node-rank", "1", "-n", "1", "--master-addr", "10.77.0.1", "--",
                TopologyRank.class.getName()), null);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertEquals(2, p.exitValue(), out);
        assertTrue(out.startsWith("unicomm run: a job across 2 hosts needs one secret on every host: export UNICOMM_TOKEN="), out);
        assertEquals(1, out.lines().count(), out);
    }

    @Test void nodeLayoutMistakesAreOneLine() {
        Captured r = CliRunner.run("run", "--nnodes", "2", "--node-rank", "2", "-n", "1", "--master-addr", "h0", "--", TopologyRank.class.getName());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("--node-rank must be in [0, 2) for --nnodes 2, got 2"), r.err());
        r = CliRunner.run("run", "--nnodes", "2", "-n", "1", "--", TopologyRank.class.getName());
        assertEquals(2, r.code(), r.err());
        assertTrue(r.err().contains("a job of 2 nodes needs --master-addr"), r.err());
        r = CliRunner.run("run", "--nnodes", "2", "-n", "1", "--rdzv-endpoint", "nohost", "--", TopologyRank.class.getName());
        assertTrue(r.err().contains("--rdzv-endpoint must be ADDR:PORT, got 'nohost'"), r.err());
    }

    /** {@code unicomm run ARGS} in a JVM of its own (the secret comes from the launcher's environment, as on a real host). */
    static Process launcher(List<String> args, String token) throws IOException {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                Main.class.getName(), "run"));
        cmd.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().remove("UNICOMM_TOKEN");
        if (token != null) pb.environment().put("UNICOMM_TOKEN", token);
        return pb.start();
    }
}
