package dev.unicomm.benchmarks.bench;

import dev.unicomm.launch.JobSpec;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code unicomm bench collectives}: time, algorithm bandwidth and bus bandwidth (NCCL-tests'
 * definitions, see {@link CollRow}) of the collectives for several job sizes and message sizes.
 * Starts the ranks itself (one JVM each). Every row carries a same-run reference (one process's
 * {@code MemorySegment.copy} of the same bytes); {@code --compare} adds another implementation's
 * rows (benchmarks/reference/coll_mpi.c prints them for Open MPI) and the ratio.
 */
@Command(
        name = "collectives",
        mixinStandardHelpOptions = true,
        description =
                "Collectives benchmark: time, algbw, busbw for 2 and 4 ranks, 4 B .. --max-size; CSV; optional comparison.")
public final class CollectivesBenchCommand implements Callable<Integer> {

    @Option(names = "--backend", defaultValue = "shm", description = "Backend to measure (default: ${DEFAULT-VALUE}).")
    String backend;

    @Option(names = "-n", defaultValue = "2,4", split = ",", description = "Job sizes (default: ${DEFAULT-VALUE}).")
    List<Integer> ranks;

    @Option(
            names = "--ops",
            defaultValue = "allreduce,allgather",
            split = ",",
            description =
                    "Collectives: allreduce, allgather, reducescatter, alltoall, broadcast (default: ${DEFAULT-VALUE}).")
    List<String> ops;

    @Option(
            names = "--min-size",
            defaultValue = "4",
            description = "Smallest size (bytes, K/M/G; default: ${DEFAULT-VALUE}).")
    String minSize;

    @Option(
            names = "--max-size",
            defaultValue = "64M",
            description =
                    "Largest size (up to 256M and beyond; default: ${DEFAULT-VALUE}, which runs in a few minutes on 2 cores).")
    String maxSize;

    @Option(
            names = "--factor",
            defaultValue = "4",
            description = "Each size is this many times the previous (default: ${DEFAULT-VALUE}).")
    int factor;

    @Option(
            names = "--seconds",
            defaultValue = "0.3",
            description = "Target timed seconds per size (default: ${DEFAULT-VALUE}).")
    double seconds;

    @Option(
            names = "--warmup",
            defaultValue = "3",
            description = "Untimed passes over all sizes for at least this many seconds per collective before timing: "
                    + "4 JVMs compiling on 2 cores need seconds to settle (default: ${DEFAULT-VALUE}).")
    double warmup;

    @Option(
            names = "--repeat",
            defaultValue = "1",
            description =
                    "Run every job this many times and keep each row's best (lowest) time: on a shared, busy machine "
                            + "the best of several runs is the least disturbed one (default: ${DEFAULT-VALUE}).")
    int repeat;

    @picocli.CommandLine.Mixin
    CsvOption csv = new CsvOption();

    @Option(
            names = "--compare",
            paramLabel = "FILE",
            description =
                    "CBENCH lines of another implementation (benchmarks/reference/run_mpi_collectives.sh writes them): adds its busbw and time and our ratio.")
    Path compare;

    @picocli.CommandLine.Mixin
    JfrOption jfr = new JfrOption();

    @picocli.CommandLine.Mixin
    PlotOption plot = new PlotOption();

    @Override
    public Integer call() throws IOException {
        if (seconds <= 0) throw new IllegalArgumentException("--seconds must be > 0, got " + seconds);
        if (warmup < 0) throw new IllegalArgumentException("--warmup must be >= 0, got " + warmup);
        if (repeat < 1) throw new IllegalArgumentException("--repeat must be >= 1, got " + repeat);
        for (int n : ranks) BenchLimits.count("-n", n, 1, BenchLimits.MAX_RANKS);
        BenchLimits.count("--repeat", repeat, 1, 1000);
        BenchLimits.count("--factor", factor, 2, 1024);
        BenchLimits.seconds("--seconds", seconds, 3600);
        if (warmup > 3600)
            throw new IllegalArgumentException("--warmup " + warmup + " is out of range: allowed 0 .. 3600 seconds");
        for (String op : ops)
            if (!CollectivesBenchWorker.OPS.contains(op))
                throw new IllegalArgumentException(
                        "unknown collective '" + op + "' in --ops; known: " + CollectivesBenchWorker.OPS);
        List<Long> sizes = BenchReport.sizes(
                BenchLimits.size("--min-size", minSize, BenchLimits.MAX_SIZE),
                BenchLimits.size("--max-size", maxSize, BenchLimits.MAX_SIZE),
                factor);
        long max = sizes.getLast();
        String sizeList = sizes.stream().map(String::valueOf).collect(Collectors.joining(","));
        List<CollRow> rows = new ArrayList<>();
        for (int n : ranks) {
            System.err.println("bench collectives: backend " + backend + ", " + n + " ranks, " + String.join(",", ops)
                    + ", " + BenchReport.size(sizes.getFirst()) + " .. " + BenchReport.size(max));
            List<CollRow> best = new ArrayList<>();
            for (int k = 0; k < repeat; k++)
                best = bestOf(
                        best,
                        launch(
                                n,
                                2 * max + (16L << 20),
                                ops.size() * sizes.size(),
                                String.join(",", ops),
                                sizeList,
                                Double.toString(seconds),
                                Double.toString(warmup)));
            rows.addAll(best);
        }
        Map<String, CollRow> other = compare == null ? Map.of() : read(compare);
        table(rows, other, System.out);
        if (csv.wanted()) {
            List<String> lines = new ArrayList<>();
            lines.add("op,ranks,bytes,time_us,algbw_gbs,busbw_gbs,copy_gbs,other_time_us,other_busbw_gbs");
            for (CollRow r : rows) {
                CollRow o = other.get(r.key());
                lines.add(String.format(
                        Locale.ROOT,
                        "%s,%d,%d,%.3f,%.6g,%.6g,%.6g,%s,%s",
                        r.op(),
                        r.ranks(),
                        r.bytes(),
                        r.timeUs(),
                        r.algBw(),
                        r.busBw(),
                        r.copyBw(),
                        o == null ? "" : String.format(Locale.ROOT, "%.3f", o.timeUs()),
                        o == null ? "" : String.format(Locale.ROOT, "%.6g", o.busBw())));
            }
            csv.write(lines);
        }
        if (plot.wanted()) plot.write(plot(rows, backend), "unicomm bench collectives (" + backend + ")");
        return 0;
    }

    /** Bus bandwidth and time per collective and job size; a local copy of the same size, dashed. */
    static BenchPlot plot(List<CollRow> rows, String backend) {
        BenchPlot p = new BenchPlot();
        for (CollRow r : rows) {
            p.add(r.op() + " (" + backend + ", " + r.ranks() + " ranks)", false, r.bytes(), r.timeUs(), r.busBw());
            if (r.copyBw() > 0)
                p.add("reference: MemorySegment.copy", true, r.bytes(), r.bytes() / r.copyBw() / 1000, r.copyBw());
        }
        return p;
    }

    static void table(List<CollRow> rows, Map<String, CollRow> other, PrintStream out) {
        boolean cmp = !other.isEmpty();
        out.printf(
                Locale.ROOT,
                "%-13s %5s %10s %12s %10s %10s %10s%s%n",
                "op",
                "ranks",
                "size",
                "time(us)",
                "algbw GB/s",
                "busbw GB/s",
                "copy GB/s",
                cmp
                        ? String.format(
                                Locale.ROOT, " %12s %10s %9s %9s", "ref time(us)", "ref busbw", "bw ratio", "t ratio")
                        : "");
        for (CollRow r : rows) {
            out.printf(
                    Locale.ROOT,
                    "%-13s %5d %10s %12.2f %10.3f %10.3f %10.3f",
                    r.op(),
                    r.ranks(),
                    BenchReport.size(r.bytes()),
                    r.timeUs(),
                    r.algBw(),
                    r.busBw(),
                    r.copyBw());
            CollRow o = other.get(r.key());
            if (o != null)
                out.printf(
                        Locale.ROOT,
                        " %12.2f %10.3f %9.2f %9.2f",
                        o.timeUs(),
                        o.busBw(),
                        o.busBw() > 0 ? r.busBw() / o.busBw() : 0,
                        r.timeUs() / o.timeUs());
            out.println();
        }
        if (cmp)
            out.println(
                    "bw ratio = our busbw / reference busbw (>= 1: we are faster); t ratio = our time / reference time (<= 1: we are faster)");
    }

    /** Row by row, the faster of {@code a} and {@code b} (rows of {@code b} missing from {@code a} are added). */
    static List<CollRow> bestOf(List<CollRow> a, List<CollRow> b) {
        Map<String, CollRow> m = new java.util.LinkedHashMap<>();
        for (CollRow r : a) m.put(r.key(), r);
        for (CollRow r : b) m.merge(r.key(), r, (x, y) -> y.timeUs() < x.timeUs() ? y : x);
        return new ArrayList<>(m.values());
    }

    /** The other implementation's rows; a key seen several times (several runs) keeps its best time. */
    static Map<String, CollRow> read(Path file) throws IOException {
        Map<String, CollRow> m = new HashMap<>();
        for (String line : Files.readAllLines(file)) {
            int at = line.indexOf("CBENCH,");
            if (at >= 0) {
                CollRow r = CollRow.parse(line.substring(at));
                m.merge(r.key(), r, (x, y) -> y.timeUs() < x.timeUs() ? y : x);
            }
        }
        return m;
    }

    private List<CollRow> launch(int n, long heapBytes, int expectedRows, String... args) {
        JobSpec spec = JobSpec.of(n, CollectivesBenchWorker.class.getName(), args)
                .withBackend(backend)
                .withEnv(jfr.env("n" + n, Map.of("UNICOMM_HEAP_SIZE", Long.toString(heapBytes))))
                .withCommTimeout(Duration.ofMinutes(5))
                .withJobTimeout(Duration.ofMinutes(30));
        return BenchJob.rows(
                        spec,
                        "bench collectives (" + n + " ranks)",
                        expectedRows,
                        "CBENCH,",
                        () -> jfr.report("n" + n, n))
                .stream()
                .map(CollRow::parse)
                .toList();
    }
}
