package dev.unicomm.conformance.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.launch.JobResult;
import dev.unicomm.launch.JobSpec;
import dev.unicomm.testsupport.ProcessJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job launcher ({@code unicomm run}) with a rank SIGKILLed mid-job on backend-shm: every survivor
 * notices on its own (exit code 3, the abort names the rank), the job's exit code is the victim's,
 * no rank process outlives the launcher and no heap file is left in the segment folder.
 */
@Timeout(600)
class LaunchedFaultTest {
    @TempDir
    Path dir;

    @Test
    void aKilledRankIsReportedByEverySurvivorAndNothingOutlivesTheJob() throws Exception {
        JobSpec spec = JobSpec.of(4, LaunchedFaultRank.class.getName(), "2")
                .withBackend("shm")
                .withEnv(Map.of("UNICOMM_SHM_DIR", dir.toString()))
                .withJvmOptions(List.of("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx128m"))
                .withCommTimeout(Duration.ofSeconds(10))
                .withJobTimeout(Duration.ofSeconds(90))
                .withKillGrace(Duration.ofSeconds(20));
        ProcessJob.Finished job = ProcessJob.runMerged(spec);
        JobResult r = job.result();
        String log = job.out();
        assertEquals(137, r.exitCode(), log);
        assertEquals(2, r.failedRank(), log);
        assertEquals(
                List.of(3, 3, 137, 3),
                r.rankExitCodes(),
                "survivors exit 3 after noticing the abort themselves\n" + log);
        for (int s : new int[] {0, 1, 3})
            assertTrue(log.contains("[" + s + "] ABORTED failedRank=2 "), "rank " + s + " must name rank 2:\n" + log);
        List<Long> pids = Pattern.compile("\\] PID (\\d+)")
                .matcher(log)
                .results()
                .map(m -> Long.parseLong(m.group(1)))
                .toList();
        assertEquals(4, pids.size(), log);
        for (long pid : pids)
            assertTrue(
                    ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true),
                    "rank process " + pid + " outlived the job");
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(List.of(), files.toList(), "heap files left behind");
        }
        System.out.println("[reliability] launched 4-rank shm job, rank 2 SIGKILLed in a barrier loop: "
                + Pattern.compile("ABORTED failedRank=2 ms=(\\d+)")
                        .matcher(log)
                        .results()
                        .map(m -> m.group(1) + " ms")
                        .toList()
                + " from loop start (kill at +300 ms) to the survivors' abort");
    }
}
