package dev.unicomm.backend.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #18 finding 2: PEs that share the shm folder but not a PID namespace (containers of one pod).
 * Rank 1 (or the sweeping process) runs under {@code unshare --pid --fork --mount-proc}, where the
 * host's pids do not exist. Root only; skipped with the reason otherwise.
 */
class ShmPidNamespaceTest {
    @TempDir
    Path tmp;

    @BeforeEach
    void needsNamespaces() {
        RootOnly.requirePidNamespaces();
    }

    private static List<String> java(String mainClass, String... args) {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-Xmx64m",
                "-XX:TieredStopAtLevel=1",
                "-cp",
                System.getProperty("java.class.path"),
                mainClass));
        cmd.addAll(List.of(args));
        return cmd;
    }

    private static List<String> inNewPidNamespace(List<String> cmd) {
        List<String> all = new ArrayList<>(List.of("unshare", "--pid", "--fork", "--mount-proc"));
        all.addAll(cmd);
        return all;
    }

    private static Process start(List<String> cmd, Map<String, String> env, Path log) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        pb.environment().putAll(env);
        return pb.start();
    }

    private static String finish(Process p, Path log) throws Exception {
        if (!p.waitFor(90, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("process did not finish:\n" + Files.readString(log));
        }
        return Files.readString(log, StandardCharsets.UTF_8);
    }

    @Test
    void aRankInAnotherPidNamespaceIsNotReportedDead() throws Exception {
        Path shm = Files.createDirectory(tmp.resolve("shm"));
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String token = UUID.randomUUID().toString();
        List<Process> ps = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            Map<String, String> env = new HashMap<>(ShmJobs.twoRankEnvironment(r, port, token));
            env.put("UNICOMM_SHM_DIR", shm.toString());
            List<String> cmd = java(ShmWorker.class.getName(), "slow-barriers");
            logs.add(tmp.resolve("rank" + r + ".log"));
            ps.add(start(r == 1 ? inNewPidNamespace(cmd) : cmd, env, logs.get(r)));
        }
        for (int r = 0; r < 2; r++) {
            String out = finish(ps.get(r), logs.get(r));
            assertEquals(0, ps.get(r).exitValue(), "rank " + r + ":\n" + out);
            assertTrue(out.contains("RESULT rank " + r + " passed 16 slow barriers"), "rank " + r + ":\n" + out);
        }
    }

    @Test
    void aLiveJobsFileIsNotReclaimedFromAnotherPidNamespace() throws Exception {
        Path shm = Files.createDirectory(tmp.resolve("shm"));
        Path live = shm.resolve(
                SegmentFiles.name("0feed", 0, ProcessHandle.current().pid()));
        Path stale = shm.resolve(
                SegmentFiles.name("0dead", 1, ProcessHandle.current().pid()));
        Files.write(stale, new byte[16]); // nobody holds it: the sweep must still work in there
        try (Arena a = Arena.ofShared();
                SegmentFiles.Handle held = SegmentFiles.create(live, 1 << 16, a)) {
            Path log = tmp.resolve("sweep.log");
            String out = finish(
                    start(inNewPidNamespace(java(ReclaimMain.class.getName(), shm.toString())), Map.of(), log), log);
            assertTrue(out.contains("RESULT removed [" + stale + "]"), out);
            assertTrue(
                    Files.exists(live), "the live job's file was deleted by a sweep in another PID namespace:\n" + out);
        }
    }
}
