package dev.unicomm.backend.ascend;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.launch.JobLauncher;
import dev.unicomm.launch.JobResult;
import dev.unicomm.launch.JobSpec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Two-rank jobs on the stand-in test double for what the kit leaves out on this backend: open/close
 * cycles with leak checks, stream-ordered RMA and barriers across processes, settings mismatch and
 * the one-instance-per-process rule. Each rank is a JVM started by the project's JobLauncher.
 */
class MultiProcessStandInTest {

    @ParameterizedTest
    @ValueSource(strings = {"cycles", "streams", "mismatch", "second-instance"})
    void scenario(String name) throws IOException {
        String lib = StandIn.library().toString();
        JobSpec spec = JobSpec.of(2, AscendWorker.class.getName(), name, freePorts(5))
                .withBackend("ascend")
                .withJvmOptions(List.of(
                        "--enable-native-access=ALL-UNNAMED",
                        "-Xmx64m",
                        "-XX:TieredStopAtLevel=1",
                        "-Dorg.bytedeco.javacpp.cachedir="
                                + System.getProperty("org.bytedeco.javacpp.cachedir", "target/javacpp-cache")))
                .withEnv(Map.of(
                        "UNICOMM_ASCEND_ACL_LIBRARY",
                        lib,
                        "UNICOMM_ASCEND_SHMEM_LIBRARY",
                        lib,
                        "UNICOMM_HEAP_SIZE",
                        "16M"))
                .withCommTimeout(Duration.ofSeconds(10))
                .withJobTimeout(Duration.ofSeconds(90));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        JobResult result;
        try (PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            result = JobLauncher.run(spec, ps, ps);
        }
        String log = out.toString(StandardCharsets.UTF_8);
        System.out.print(log);
        assertFalse(result.timedOut(), "job timed out:\n" + log);
        assertEquals(List.of(0, 0), result.rankExitCodes(), "rank exit codes:\n" + log);
        long oks = log.lines().filter(l -> l.endsWith("OK " + name)).count();
        assertTrue(oks == 2, "both ranks must print OK " + name + ":\n" + log);
    }

    private static String freePorts(int n) throws IOException {
        List<ServerSocket> held = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) held.add(new ServerSocket(0));
            return held.stream().map(s -> Integer.toString(s.getLocalPort())).collect(Collectors.joining(","));
        } finally {
            for (ServerSocket s : held) s.close();
        }
    }
}
