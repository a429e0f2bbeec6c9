package dev.unicomm.benchmarks.bench;

import java.util.Locale;

/**
 * One measured figure of a benchmark: an operation at a size on some ranks, with the same-run
 * reference it is compared with ({@code refNsPerOp <= 0}: none).
 *
 * @param op         operation name (e.g. {@code put}, {@code barrier})
 * @param ranks      ranks in the job that measured it
 * @param bytes      bytes per operation (0 for operations without payload)
 * @param iters      operations per timed batch
 * @param nsPerOp    median time per operation
 * @param reference  what the reference is (e.g. {@code MemorySegment.copy}), empty for none
 * @param refNsPerOp the reference's median time per operation, or 0
 */
public record BenchRow(
        String op, int ranks, long bytes, long iters, double nsPerOp, String reference, double refNsPerOp) {
    public BenchRow {
        if (op.contains(",") || reference.contains(","))
            throw new IllegalArgumentException(
                    "operation and reference names must not contain commas (they are CSV fields): " + op + " / "
                            + reference);
    }

    /** Bandwidth in GB/s (10^9 bytes per second), or 0 without payload. */
    public double gbps() {
        return bytes == 0 ? 0 : bytes / nsPerOp;
    }

    public double refGbps() {
        return bytes == 0 || refNsPerOp <= 0 ? 0 : bytes / refNsPerOp;
    }

    /** Speed relative to the reference (reference time / our time; > 1 means faster), or 0 without one. */
    public double ratio() {
        return refNsPerOp <= 0 ? 0 : refNsPerOp / nsPerOp;
    }

    /** The machine-readable line a worker prints. */
    public String toLine() {
        return String.format(
                Locale.ROOT, "BENCH,%s,%d,%d,%d,%.3f,%s,%.3f", op, ranks, bytes, iters, nsPerOp, reference, refNsPerOp);
    }

    /** Parses {@link #toLine()}'s output. */
    public static BenchRow parse(String line) {
        String[] f = line.split(",", -1);
        if (f.length != 8 || !f[0].equals("BENCH")) throw new IllegalArgumentException("not a benchmark line: " + line);
        return new BenchRow(
                f[1],
                Integer.parseInt(f[2]),
                Long.parseLong(f[3]),
                Long.parseLong(f[4]),
                Double.parseDouble(f[5]),
                f[6],
                Double.parseDouble(f[7]));
    }

    public static final String CSV_HEADER =
            "op,ranks,bytes,iters,ns_per_op,gb_per_s,reference,ref_ns_per_op,ref_gb_per_s,ratio";

    public String toCsv() {
        return String.format(
                Locale.ROOT,
                "%s,%d,%d,%d,%.3f,%.4f,%s,%.3f,%.4f,%.4f",
                op,
                ranks,
                bytes,
                iters,
                nsPerOp,
                gbps(),
                reference,
                refNsPerOp,
                refGbps(),
                ratio());
    }
}
