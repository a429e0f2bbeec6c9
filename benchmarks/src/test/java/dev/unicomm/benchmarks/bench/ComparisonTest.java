package dev.unicomm.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ComparisonTest {
    @TempDir
    Path tmp;

    @Test
    void matchingRowsArePairedWithTheirSpeedup() throws Exception {
        Path f = tmp.resolve("osh.txt");
        Files.write(
                f,
                List.of(
                        "noise",
                        "BENCH,put+quiet,2,1048576,10,80000.000,,0.000",
                        "BENCH,barrier,4,0,10,900.000,,0.000",
                        "BENCH,put-fence-add+quiet,2,8,10,300.000,,0.000"));
        List<BenchRow> ours = List.of(
                new BenchRow("put+quiet", 2, 1 << 20, 10, 40_000, "MemorySegment.copy", 41_000),
                new BenchRow("put-signal+quiet", 2, 8, 10, 30, "MemorySegment.copy", 5),
                new BenchRow("barrier", 2, 0, 10, 300, "", 0));
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        Comparison.print(ours, Comparison.read(f), "osh.txt", new PrintStream(buf, true));
        String out = buf.toString();
        assertTrue(out.contains("put+quiet") && out.contains("2.00x"), out);
        assertTrue(out.contains("put-signal+quiet") && out.contains("10.00x"), out);
        assertEquals(2 + 1 + 2, out.lines().count(), "the 2-rank barrier has no 4-rank partner:\n" + out);
    }

    @Test
    void aFileWithoutRowsIsRejected() throws Exception {
        Path f = tmp.resolve("empty.txt");
        Files.write(f, List.of("nothing here"));
        var e = assertThrows(IllegalArgumentException.class, () -> Comparison.read(f));
        assertTrue(e.getMessage().contains("no BENCH lines"), e.getMessage());
    }
}
