package dev.unicomm.benchmarks.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Our rows next to another implementation's (e.g. Open MPI's OpenSHMEM, measured by
 * {@code benchmarks/reference/shmem_rma.c} with the same sizes and timing method).
 */
final class Comparison {
    private Comparison() {}

    /** Their operation name for each of ours, where the operations correspond. */
    static final Map<String, String> THEIR_OP = Map.of(
            "put+quiet", "put+quiet",
            "get", "get",
            "put-signal+quiet", "put-fence-add+quiet",
            "atomic-fetch-add", "atomic-fetch-add",
            "put-signal-pingpong/2", "p-pingpong/2",
            "barrier", "barrier");

    /** The BENCH lines of {@code file} (other lines are skipped). */
    static List<BenchRow> read(Path file) throws IOException {
        List<BenchRow> rows = new ArrayList<>();
        for (String line : Files.readAllLines(file)) {
            int at = line.indexOf("BENCH,");
            if (at >= 0) rows.add(BenchRow.parse(line.substring(at).strip()));
        }
        if (rows.isEmpty()) throw new IllegalArgumentException(file + " holds no BENCH lines");
        return rows;
    }

    static void print(List<BenchRow> ours, List<BenchRow> theirs, String name, PrintStream out) {
        out.println();
        out.println("unicomm vs " + name + " (speedup = their time / our time; >1: unicomm faster)");
        out.printf(
                Locale.ROOT,
                "%-22s %5s %10s %12s %12s %9s%n",
                "op (ours / theirs)",
                "ranks",
                "size",
                "ours us",
                "theirs us",
                "speedup");
        for (BenchRow o : ours) {
            String op = THEIR_OP.get(o.op());
            if (op == null) continue;
            for (BenchRow t : theirs) {
                if (t.op().equals(op) && t.ranks() == o.ranks() && t.bytes() == o.bytes()) {
                    out.printf(
                            Locale.ROOT,
                            "%-22s %5d %10s %12.4f %12.4f %8.2fx%n",
                            o.op(),
                            o.ranks(),
                            o.bytes() == 0 ? "-" : BenchReport.size(o.bytes()),
                            o.nsPerOp() / 1000,
                            t.nsPerOp() / 1000,
                            t.nsPerOp() / o.nsPerOp());
                }
            }
        }
    }
}
