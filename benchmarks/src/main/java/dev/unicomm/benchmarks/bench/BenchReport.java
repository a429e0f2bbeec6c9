package dev.unicomm.benchmarks.bench;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Prints benchmark rows as an aligned table and writes them as CSV. Shared by the bench subcommands. */
public final class BenchReport {
    private BenchReport() {}

    public static void table(List<BenchRow> rows, PrintStream out) {
        out.printf(
                Locale.ROOT,
                "%-16s %5s %10s %10s %12s %10s %12s %10s %7s%n",
                "op",
                "ranks",
                "size",
                "iters",
                "latency us",
                "GB/s",
                "ref us",
                "ref GB/s",
                "ratio");
        for (BenchRow r : rows) {
            out.printf(
                    Locale.ROOT,
                    "%-16s %5d %10s %10d %12.4f %10s %12s %10s %7s%n",
                    r.op(),
                    r.ranks(),
                    r.bytes() == 0 ? "-" : size(r.bytes()),
                    r.iters(),
                    r.nsPerOp() / 1000,
                    r.bytes() == 0 ? "-" : String.format(Locale.ROOT, "%.2f", r.gbps()),
                    r.refNsPerOp() > 0 ? String.format(Locale.ROOT, "%.4f", r.refNsPerOp() / 1000) : "-",
                    r.refNsPerOp() > 0 && r.bytes() > 0 ? String.format(Locale.ROOT, "%.2f", r.refGbps()) : "-",
                    r.refNsPerOp() > 0 ? String.format(Locale.ROOT, "%.2fx", r.ratio()) : "-");
        }
        List<String> refs = new ArrayList<>();
        for (BenchRow r : rows) if (!r.reference().isEmpty() && !refs.contains(r.reference())) refs.add(r.reference());
        if (!refs.isEmpty())
            out.println("ref = same-run reference in one process (" + String.join("; ", refs)
                    + "); ratio = ref time / our time (>1: faster than the reference)");
    }

    /** The rows as CSV lines, header first. */
    static List<String> csvLines(List<BenchRow> rows) {
        List<String> lines = new ArrayList<>();
        lines.add(BenchRow.CSV_HEADER);
        for (BenchRow r : rows) lines.add(r.toCsv());
        return lines;
    }

    /** 8 -> "8 B", 4096 -> "4 KiB", 1048576 -> "1 MiB". */
    public static String size(long bytes) {
        if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) return bytes / (1 << 20) + " MiB";
        if (bytes >= 1 << 10 && bytes % (1 << 10) == 0) return bytes / (1 << 10) + " KiB";
        return bytes + " B";
    }

    /** Sizes from {@code min} to {@code max} (inclusive), each {@code factor} times the previous. */
    public static List<Long> sizes(long min, long max, int factor) {
        if (min > max)
            throw new IllegalArgumentException("smallest size " + min + " is larger than the largest " + max);
        if (factor < 2) throw new IllegalArgumentException("size factor must be >= 2, got " + factor);
        List<Long> out = new ArrayList<>();
        for (long s = min; s <= max; s = s > Long.MAX_VALUE / factor ? Long.MAX_VALUE : s * factor) {
            out.add(s);
            if (s == Long.MAX_VALUE) break;
        }
        return out;
    }
}
