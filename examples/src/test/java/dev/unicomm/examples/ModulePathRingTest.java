package dev.unicomm.examples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The module descriptors, exercised: two ranks of {@link Ring} run as named modules on the module
 * path ({@code java -p ... -m dev.unicomm.examples/...}), with nothing on the class path. The shm
 * backend is found only through comm-api's {@code uses} and backend-shm's {@code provides} (service
 * binding resolves it; nothing requires it), so a wrong export, a missing {@code provides} or a
 * class-path-only assumption fails here while every class-path test still passes.
 */
@Timeout(600)
class ModulePathRingTest {

    /** comm-api, backend-shm and this module's main classes: what a modular application would put on its module path. */
    private static String modulePath() {
        List<String> picked = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String n = e.replace(File.separatorChar, '/');
            boolean ours = n.matches(".*/comm-api(/target/classes|-[^/]*\\.jar)$")
                    || n.matches(".*/backend-shm(/target/classes|-[^/]*\\.jar)$")
                    || n.endsWith("examples/target/classes");
            if (ours) picked.add(e);
        }
        assertEquals(3, picked.size(), "comm-api, backend-shm and examples on the test class path, got " + picked);
        return String.join(File.pathSeparator, picked);
    }

    @Test
    void ringRunsAsNamedModulesWithTheBackendFoundByServiceBinding() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String token = UUID.randomUUID().toString();
        List<Process> ranks = new ArrayList<>();
        try {
            for (int r = 0; r < 2; r++) {
                ProcessBuilder pb = new ProcessBuilder(
                                java,
                                "-XX:TieredStopAtLevel=1",
                                "--enable-native-access=dev.unicomm.backend.shm",
                                "-p",
                                modulePath(),
                                "-m",
                                "dev.unicomm.examples/dev.unicomm.examples.Ring")
                        .redirectErrorStream(true);
                pb.environment().keySet().removeIf(k -> k.startsWith("UNICOMM_") || k.equals("CLASSPATH"));
                pb.environment()
                        .putAll(Map.of(
                                "UNICOMM_RANK",
                                Integer.toString(r),
                                "UNICOMM_WORLD_SIZE",
                                "2",
                                "UNICOMM_LOCAL_RANK",
                                Integer.toString(r),
                                "UNICOMM_STORE",
                                "127.0.0.1:" + port,
                                "UNICOMM_TOKEN",
                                token,
                                "UNICOMM_BACKEND",
                                "shm",
                                "UNICOMM_HEAP_SIZE",
                                "1M",
                                "UNICOMM_TIMEOUT",
                                "60s"));
                ranks.add(pb.start());
            }
            String[] out = new String[2];
            for (int r = 0; r < 2; r++) {
                Process p = ranks.get(r);
                assertTrue(p.waitFor(5, TimeUnit.MINUTES), "rank " + r + " did not finish");
                out[r] = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertEquals(0, p.exitValue(), "rank " + r + " failed:\n" + out[r]);
            }
            assertTrue(
                    out[0].contains(
                            "PE 0 of 2: inbox from PE 1 says 'hello from PE 1'; token came back as 1 (expected 1)"),
                    out[0]);
            assertTrue(out[1].contains("PE 1 of 2: inbox from PE 0 says 'hello from PE 0'"), out[1]);
            for (String o : out)
                assertFalse(o.contains("restricted method"), "native access was granted by module name:\n" + o);
        } finally {
            for (Process p : ranks) p.destroyForcibly();
        }
    }
}
