package dev.unicomm.backend.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.launch.JobSpec;
import dev.unicomm.testsupport.ProcessJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real PEs: separate JVMs that meet through the TCP rendezvous store and map each other's files. */
class MultiProcessTest {
    @TempDir
    Path tmp;

    /** Runs {@link ShmWorker}'s {@code scenario} as {@code n} JVMs through the launcher; each rank's exit code and output. */
    private List<ProcessJob.RankOutput> run(int n, String scenario, String timeout) throws Exception {
        Path shm = Files.createDirectory(tmp.resolve("shm"));
        JobSpec spec = JobSpec.of(n, ShmWorker.class.getName(), scenario)
                .withBackend("shm")
                .withJvmOptions(List.of("-Xmx64m", "-XX:TieredStopAtLevel=1"))
                .withEnv(Map.of("UNICOMM_HEAP_SIZE", "4M", "UNICOMM_SHM_DIR", shm.toString()))
                .withCommTimeout(Duration.parse("PT" + timeout.toUpperCase()))
                .withJobTimeout(Duration.ofSeconds(90))
                .withKillGrace(Duration.ofSeconds(20));
        ProcessJob.Finished job = ProcessJob.runMerged(spec);
        if (job.result().timedOut())
            throw new AssertionError("scenario " + scenario + " hit the job timeout:\n" + job.log());
        try (Stream<Path> left = Files.list(shm)) {
            assertEquals(List.of(), left.toList(), "no heap file may be left behind");
        }
        return job.ranks();
    }

    private static String result(ProcessJob.RankOutput r) {
        return r.output()
                .lines()
                .filter(l -> l.startsWith("RESULT "))
                .map(l -> l.substring(7))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no RESULT line (exit " + r.exitCode() + "):\n" + r.output()));
    }

    @Test
    void fourProcessesRingPutAndGet() throws Exception {
        var rs = run(4, "ring", "30s");
        for (int r = 0; r < 4; r++) {
            assertEquals(0, rs.get(r).exitCode(), rs.get(r).output());
            int from = (r + 3) % 4 + 1, nextHolds = r + 1;
            assertEquals("rank " + r + " got " + from + "/" + from + " next holds " + nextHolds, result(rs.get(r)));
        }
    }

    @Test
    void twoProcessesAtomicsAndFourProcessTeams() throws Exception {
        var rs = run(2, "atomics", "30s");
        for (int r = 0; r < 2; r++)
            assertEquals(
                    "rank " + r + " sum 20000", result(rs.get(r)), rs.get(r).output());
        Files.delete(tmp.resolve("shm"));
        var ts = run(4, "teams", "30s");
        assertEquals("rank 0 x 0/2 y 0/2 rowSum 1", result(ts.get(0)));
        assertEquals("rank 1 x 1/2 y 0/2 rowSum 1", result(ts.get(1)));
        assertEquals("rank 2 x 0/2 y 1/2 rowSum 5", result(ts.get(2)));
        assertEquals("rank 3 x 1/2 y 1/2 rowSum 5", result(ts.get(3)));
    }

    @Test
    void mismatchedAllocationAcrossProcessesIsReportedOnEveryRank() throws Exception {
        var rs = run(2, "mismatch", "30s");
        for (var r : rs) {
            assertEquals(0, r.exitCode(), r.output());
            String msg = result(r);
            // The API's call agreement catches it (before the heap's own check) and names both requests.
            assertTrue(msg.contains("rank 1 made a different call"), msg);
            assertTrue(
                    msg.contains("heap allocate #1 (size 1024, alignment 64)")
                            && msg.contains("heap allocate #1 (size 4096, alignment 64)"),
                    msg);
        }
    }

    @Test
    void aCrashedProcessAbortsTheOthersNamingIt() throws Exception {
        var rs = run(3, "crash", "60s");
        assertEquals(42, rs.get(1).exitCode());
        for (int r : new int[] {0, 2}) {
            assertEquals(
                    "rank " + r + " aborted: failed rank 1",
                    result(rs.get(r)),
                    rs.get(r).output());
        }
    }
}
