package dev.unicomm.benchmarks.bench;

import java.util.Locale;

/**
 * One measured row of {@code unicomm bench collectives}, with NCCL-tests' definitions:
 * {@code bytes} is the size NCCL-tests reports (allreduce/broadcast: the vector; allgather: the
 * gathered total; reduce-scatter: the input total; alltoall: the total per rank),
 * {@code algBw = bytes / time}, {@code busBw = algBw x factor} with factor 2(n-1)/n for allreduce,
 * (n-1)/n for allgather, reduce-scatter and alltoall, 1 for broadcast.
 *
 * @param op      collective (allreduce, allgather, ...)
 * @param ranks   job size
 * @param bytes   NCCL-tests size in bytes
 * @param timeUs  time per operation (microseconds, slowest rank)
 * @param algBw   algorithm bandwidth, GB/s (1e9 bytes)
 * @param busBw   bus bandwidth, GB/s
 * @param copyBw  same-run reference: one process copying {@code bytes} with {@code MemorySegment.copy}, GB/s
 */
public record CollRow(String op, int ranks, long bytes, double timeUs, double algBw, double busBw, double copyBw) {

    /** The bus-bandwidth factor of {@code op} on {@code n} ranks (NCCL-tests' PERFORMANCE.md). */
    public static double busFactor(String op, int n) {
        return switch (op) {
            case "allreduce" -> 2.0 * (n - 1) / n;
            case "broadcast" -> 1.0;
            default -> (double) (n - 1) / n;
        };
    }

    /** A row from the time per operation. */
    public static CollRow of(String op, int ranks, long bytes, double timeUs, double copyBw) {
        double alg = timeUs > 0 ? bytes / (timeUs * 1e3) : 0;
        return new CollRow(op, ranks, bytes, timeUs, alg, alg * busFactor(op, ranks), copyBw);
    }

    /** The line workers print (and the C reference prints, without the copy column). */
    public String toLine() {
        return String.format(
                Locale.ROOT, "CBENCH,%s,%d,%d,%.3f,%.6g,%.6g,%.6g", op, ranks, bytes, timeUs, algBw, busBw, copyBw);
    }

    /** Parses {@link #toLine()}; a missing copy column (other implementations) reads as 0. */
    public static CollRow parse(String line) {
        String[] f = line.strip().split(",");
        if (f.length < 7 || !f[0].equals("CBENCH")) throw new IllegalArgumentException("not a CBENCH line: " + line);
        return new CollRow(
                f[1],
                Integer.parseInt(f[2]),
                Long.parseLong(f[3]),
                Double.parseDouble(f[4]),
                Double.parseDouble(f[5]),
                Double.parseDouble(f[6]),
                f.length > 7 ? Double.parseDouble(f[7]) : 0);
    }

    /** Key for matching rows of two implementations. */
    String key() {
        return op + "/" + ranks + "/" + bytes;
    }
}
