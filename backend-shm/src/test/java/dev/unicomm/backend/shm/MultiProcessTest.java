package dev.unicomm.backend.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real PEs: separate JVMs that meet through the TCP rendezvous store and map each other's files. */
class MultiProcessTest {
    @TempDir Path tmp;

    private List<ProcessJob.Result> run(int n, String scenario, String timeout) throws Exception {
        Path shm = Files.createDirectory(tmp.resolve("shm"));
        List<ProcessJob.Result> results = ProcessJob.run(n, shm, scenario, timeout);
        try (Stream<Path> left = Files.list(shm)) {
            assertEquals(List.of(), left.toList(), "no heap file may be left behind");
        }
        return results;
    }

    private static String result(ProcessJob.Result r) {
        return r.output().lines().filter(l -> l.startsWith("RESULT ")).map(l -> l.substring(7)).findFirst()
                .orElseThrow(() -> new AssertionError("no RESULT line (exit " + r.exitCode() + "):\n" + r.output()));
    }

    @Test void fourProcessesRingPutAndGet() throws Exception {
        var rs = run(4, "ring", "30s");
        for (int r = 0; r < 4; r++) {
            assertEquals(0, rs.get(r).exitCode(), rs.get(r).output());
            int from = (r + 3) % 4 + 1, nextHolds = r + 1;
            assertEquals("rank " + r + " got " + from + "/" + from + " next holds " + nextHolds, result(rs.get(r)));
        }
    }

    @Test void twoProcessesAtomicsAndFourProcessTeams() throws Exception {
        var rs = run(2, "atomics", "30s");
        for (int r = 0; r < 2; r++) assertEquals("rank " + r + " sum 20000", result(rs.get(r)), rs.get(r).output());
        Files.delete(tmp.resolve("shm"));
        var ts = run(4, "teams", "30s");
        assertEquals("rank 0 x 0/2 y 0/2 rowSum 1", result(ts.get(0)));
        assertEquals("rank 1 x 1/2 y 0/2 rowSum 1", result(ts.get(1)));
        assertEquals("rank 2 x 0/2 y 1/2 rowSum 5", result(ts.get(2)));
        assertEquals("rank 3 x 1/2 y 1/2 rowSum 5", result(ts.get(3)));
    }

    @Test void mismatchedAllocationAcrossProcessesIsReportedOnEveryRank() throws Exception {
        var rs = run(2, "mismatch", "30s");
        for (var r : rs) {
            assertEquals(0, r.exitCode(), r.output());
            String msg = result(r);
            // The API's call agreement catches it (before the heap's own check) and names both requests.
            assertTrue(msg.contains("rank 1 made a different call"), msg);
            assertTrue(msg.contains("heap allocate #1 (size 1024, alignment 64)") && msg.contains("heap allocate #1 (size 4096, alignment 64)"), msg);
        }
    }

    @Test void aCrashedProcessAbortsTheOthersNamingIt() throws Exception {
        var rs = run(3, "crash", "60s");
        assertEquals(42, rs.get(1).exitCode());
        for (int r : new int[] {0, 2}) {
            assertEquals("rank " + r + " aborted: failed rank 1", result(rs.get(r)), rs.get(r).output());
        }
    }
}
