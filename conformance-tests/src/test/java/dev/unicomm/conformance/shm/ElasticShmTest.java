package dev.unicomm.conformance.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.launch.JobLauncher;
import dev.unicomm.launch.JobResult;
import dev.unicomm.launch.JobSpec;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Elastic mode on backend-shm (issue 23): 4 ranks run a MoE dispatch/combine loop, rank 2 is
 * SIGKILLed inside an iteration; every survivor gets a {@code RankFailedException} naming rank 2
 * within the communicator timeout, shrinks to 3 ranks and finishes the loop, every iteration checked
 * against the kit's reference. The experts stay where the job of 4 placed them: after the shrink the
 * buffer masks rank 2's (semantics §7.7), and the iterations on 3 ranks report their dropped top-k
 * entries (checked per token inside each iteration, and non-zero in total). Survivors exit 0, no heap
 * file is left, no rank outlives the job.
 */
@Timeout(300)
class ElasticShmTest {
    @TempDir
    Path dir;

    @Test
    void survivorsShrinkAndFinishTheMoeLoopWithCheckedResults() throws Exception {
        Duration commTimeout = Duration.ofSeconds(15);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        JobResult r;
        try (PrintStream sink = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            JobSpec spec = JobSpec.of(4, ElasticMoeRank.class.getName(), "2")
                    .withBackend("shm")
                    .withEnv(Map.of("UNICOMM_SHM_DIR", dir.toString(), "UNICOMM_ELASTIC", "true"))
                    .withJvmOptions(List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx128m"))
                    .withCommTimeout(commTimeout)
                    .withJobTimeout(Duration.ofSeconds(240))
                    .withKillGrace(Duration.ofSeconds(200));
            r = JobLauncher.run(spec, sink, sink);
        }
        String log = out.toString(StandardCharsets.UTF_8);
        assertEquals(List.of(0, 0, 137, 0), r.rankExitCodes(), "survivors finish, the victim was killed\n" + log);
        long kill = wall(log, "\\[2\\] KILL wall=(\\d+)");
        for (int s : new int[] {0, 1, 3}) {
            String p = "[" + s + "] ";
            assertTrue(
                    log.contains(p + "RANKFAILED ranks=[2] "),
                    "rank " + s + " must be told that rank 2 failed:\n" + log);
            assertTrue(
                    log.contains(p + "SHRUNK size=3 jobRanks=[0, 1, 3]"),
                    "rank " + s + " shrinks to the survivors:\n" + log);
            assertTrue(log.contains(p + "DONE failures=1"), log);
            for (int it = 0; it < ElasticMoeRank.ITERATIONS; it++)
                assertTrue(
                        log.contains(p + "CHECKED it=" + it + " "),
                        "rank " + s + " never completed iteration " + it + ":\n" + log);
            assertTrue(
                    Pattern.compile(Pattern.quote(p) + "CHECKED it=\\d+ size=4 dropped=0\\b")
                            .matcher(log)
                            .find(),
                    "before the kill nothing is masked:\n" + log);
            assertFalse(
                    Pattern.compile(Pattern.quote(p) + "CHECKED it=\\d+ size=4 dropped=[1-9]")
                            .matcher(log)
                            .find(),
                    log);
            long droppedAfter = 0;
            for (Matcher m = Pattern.compile(Pattern.quote(p) + "CHECKED it=\\d+ size=3 dropped=(\\d+)")
                            .matcher(log);
                    m.find(); ) droppedAfter += Long.parseLong(m.group(1));
            assertTrue(
                    droppedAfter > 0,
                    "after the shrink rank 2's experts are masked, so some entries must be dropped:\n" + log);
            long seen = wall(log, Pattern.quote(p) + "RANKFAILED ranks=\\[2\\] it=\\d+ wall=(\\d+)");
            assertTrue(
                    seen - kill <= commTimeout.toMillis() + 2000,
                    "rank " + s + " noticed only after " + (seen - kill) + " ms:\n" + log);
            long shrunk = wall(log, Pattern.quote(p) + "SHRUNK size=3 jobRanks=\\[0, 1, 3\\] wall=(\\d+)");
            long first = wall(log, Pattern.quote(p) + "FIRST-AFTER-SHRINK wall=(\\d+)");
            long resume = wall(log, Pattern.quote(p) + "RESUME it=(\\d+)");
            System.out.println("[reliability] elastic shm 4->3 ranks, rank " + s + ": failure seen " + (seen - kill)
                    + " ms after the kill, shrink done at " + (shrunk - kill) + " ms, first checked MoE iteration ("
                    + resume
                    + ") on the shrunken communicator at " + (first - kill) + " ms");
        }
        for (Matcher m = Pattern.compile("\\] PID (\\d+)").matcher(log); m.find(); ) {
            long pid = Long.parseLong(m.group(1));
            assertTrue(
                    ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true),
                    "rank process " + pid + " outlived the job");
        }
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(), files.toList(), "heap files left behind");
        }
    }

    private static long wall(String log, String regex) {
        Matcher m = Pattern.compile(regex).matcher(log);
        assertTrue(m.find(), "no line matching " + regex + " in:\n" + log);
        return Long.parseLong(m.group(1));
    }
}
