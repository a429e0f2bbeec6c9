package dev.unicomm.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CollectivesBenchCommandTest {
    @TempDir
    Path tmp;

    @Test
    void bandwidthsFollowNcclTestsDefinitions() {
        CollRow r = CollRow.of("allreduce", 4, 1_000_000, 1_000, 0);
        assertEquals(1.0, r.algBw(), 1e-9); // 1e6 B in 1 ms = 1 GB/s
        assertEquals(1.5, r.busBw(), 1e-9); // x 2(n-1)/n
        assertEquals(0.75, CollRow.of("allgather", 4, 1_000_000, 1_000, 0).busBw(), 1e-9);
        assertEquals(1.0, CollRow.of("broadcast", 4, 1_000_000, 1_000, 0).busBw(), 1e-9);
        assertEquals(r, CollRow.parse(r.toLine()));
        // Lines of the C reference have no copy column.
        assertEquals(0, CollRow.parse("CBENCH,allgather,2,64,3.5,0.0183,0.0091").copyBw());
    }

    @Test
    void repeatedRowsKeepTheBestTime() throws Exception {
        Path f = tmp.resolve("ref.txt");
        Files.writeString(
                f, "CBENCH,allreduce,2,4,9.0,0,0\nnoise\nCBENCH,allreduce,2,4,3.0,0,0\nCBENCH,allreduce,2,4,5.0,0,0\n");
        Map<String, CollRow> m = CollectivesBenchCommand.read(f);
        assertEquals(3.0, m.get("allreduce/2/4").timeUs());
        List<CollRow> best = CollectivesBenchCommand.bestOf(
                List.of(CollRow.of("allgather", 2, 8, 2.0, 0)),
                List.of(CollRow.of("allgather", 2, 8, 1.0, 0), CollRow.of("allgather", 2, 16, 4.0, 0)));
        assertEquals(List.of(1.0, 4.0), best.stream().map(CollRow::timeUs).toList());
    }

    /** The whole command with real 2-rank jobs on tiny sizes: table, CSV, and a comparison file. */
    @Test
    void benchCollectivesRunsJobsAndWritesCsv() throws Exception {
        Path csv = tmp.resolve("coll.csv"), ref = tmp.resolve("ref.txt");
        Files.writeString(ref, "CBENCH,allreduce,2,64,10.0,0.0064,0.0064\n");
        String out = Bench.succeeds(
                "bench collectives -n 2 --ops allreduce,allgather,reducescatter,alltoall,broadcast --min-size 16 --max-size 64 --seconds 0.01 --warmup 0.05 --csv "
                        + csv + " --compare " + ref);
        assertTrue(out.contains("bw ratio"), out);
        List<String> lines = Files.readAllLines(csv);
        assertEquals(1 + 5 * 2, lines.size(), String.join("\n", lines)); // 5 collectives x {16, 64} B
        for (String l : lines.subList(1, lines.size())) {
            String[] f = l.split(",", -1);
            assertTrue(Double.parseDouble(f[3]) > 0 && Double.parseDouble(f[5]) > 0, l);
            assertEquals(f[0].equals("allreduce") && f[2].equals("64"), !f[7].isEmpty(), l);
        }
    }

    @Test
    void badOptionsAreRejected() {
        assertTrue(Bench.capture("bench collectives --ops allsum").code() != 0);
        assertTrue(Bench.capture("bench collectives --max-size nope").code() != 0);
        assertTrue(Bench.capture("bench collectives --repeat 0").code() != 0);
    }
}
