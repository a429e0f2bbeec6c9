package dev.unicomm.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RmaBenchCommandTest {
    @TempDir
    Path tmp;

    @Test
    void sizesDoubleFromMinToMaxInclusive() {
        assertEquals(List.of(8L, 16L, 32L, 64L), BenchReport.sizes(8, 64, 2));
        assertEquals(List.of(8L, 32L), BenchReport.sizes(8, 64, 4));
        assertEquals("64 MiB", BenchReport.size(64L << 20));
        assertEquals("12 B", BenchReport.size(12));
        assertThrows(IllegalArgumentException.class, () -> BenchReport.sizes(64, 8, 2));
    }

    @Test
    void rowsSurviveTheirLineFormatAndComputeRatios() {
        BenchRow r = new BenchRow("put+quiet", 2, 1 << 20, 64, 50_000, "MemorySegment.copy", 55_000);
        BenchRow back = BenchRow.parse(r.toLine());
        assertEquals(r, back);
        assertEquals(1.1, back.ratio(), 1e-9);
        assertEquals((1 << 20) / 50_000.0, back.gbps(), 1e-9);
        assertThrows(IllegalArgumentException.class, () -> BenchRow.parse("hello"));
    }

    /** The whole command, with real ranks, on tiny sizes: a table, a CSV, a ratio per row. */
    @Test
    void benchRmaRunsTwoRankJobsAndWritesCsv() throws Exception {
        Path csv = tmp.resolve("out/rma.csv");
        String out = Bench.succeeds(
                "bench rma --min-size 8 --max-size 64 --factor 8 --barrier-ranks 2 --barrier-iters 200 --csv " + csv);
        assertTrue(out.contains("put+quiet") && out.contains("atomic-fetch-add") && out.contains("barrier"), out);
        List<String> lines = Files.readAllLines(csv);
        assertEquals(BenchRow.CSV_HEADER, lines.getFirst());
        // 2 sizes x 3 operations, fetch-add, ping-pong, barrier.
        assertEquals(1 + 2 * 3 + 3, lines.size(), String.join("\n", lines));
        for (String l : lines.subList(1, lines.size())) {
            BenchRow row = BenchRow.parse(toLine(l));
            assertTrue(row.nsPerOp() > 0 && row.refNsPerOp() > 0, l);
        }
    }

    @Test
    void badOptionsAreRejected() {
        assertTrue(Bench.capture("bench rma -n 1").code() != 0);
        assertTrue(Bench.capture("bench rma --max-size nope").code() != 0);
    }

    /** CSV columns back to the worker line format (drops the derived columns). */
    private static String toLine(String csvLine) {
        String[] f = csvLine.split(",", -1);
        return String.join(",", "BENCH", f[0], f[1], f[2], f[3], f[4], f[6], f[7]);
    }
}
