package dev.unicomm.backend.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Issue #46 item 4: two ranks with one hostname, boot and network but separate {@code /dev/shm} (containers
 * started with the host's UTS and network namespaces). Rank 1 runs in a mount namespace with its own
 * tmpfs on /dev/shm. It is told so in one line, instead of "shared heap file … is missing".
 */
class ShmSameNameOtherShmTest {
    @Test
    void aRankWithItsOwnDevShmIsToldSoInOneLine() throws Exception {
        assumeTrue(RootOnly.root(), "needs root (a mount namespace with its own /dev/shm)");
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String token = UUID.randomUUID().toString();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<Process> ranks = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            List<String> cmd = new ArrayList<>();
            String jvm = String.join(
                    " ",
                    java,
                    "-Xmx64m",
                    "-XX:TieredStopAtLevel=1",
                    "-cp",
                    "'" + System.getProperty("java.class.path") + "'",
                    ConnectOnce.class.getName());
            if (r == 1)
                cmd.addAll(List.of(
                        "unshare",
                        "--mount",
                        "--propagation",
                        "private",
                        "sh",
                        "-c",
                        "mount -t tmpfs tmpfs /dev/shm && exec " + jvm));
            else cmd.addAll(List.of("sh", "-c", "exec " + jvm));
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
            pb.environment().putAll(ShmJobs.twoRankEnvironment(r, port, token));
            ranks.add(pb.start());
        }
        String[] out = new String[2];
        for (int r = 0; r < 2; r++) {
            assertTrue(ranks.get(r).waitFor(90, TimeUnit.SECONDS), "rank " + r + " must end");
            out[r] = new String(ranks.get(r).getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            assertEquals(3, ranks.get(r).exitValue(), out[r]);
        }
        assertTrue(
                out[1].startsWith(
                                "FAILED CommException: the shm backend needs every PE to share one shared-memory folder")
                        && out[1].contains(
                                "the same host but another shared-memory folder (a container with its own /dev/shm?)"),
                out[1]);
        assertTrue(!out[1].contains("missing") && out[1].lines().count() == 1, out[1]);
        assertTrue(out[0].contains("another shared-memory folder"), "rank 0 learns why through the store: " + out[0]);
    }
}
