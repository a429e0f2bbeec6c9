package dev.unicomm.benchmarks.bench;

import dev.unicomm.launch.JobLauncher;
import dev.unicomm.launch.JobSpec;
import dev.unicomm.spi.BackendSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code unicomm bench rma}: put / get / put-with-signal latency and bandwidth from rank 0 to rank 1
 * for a range of sizes, atomic fetch-add latency, a put-with-signal ping-pong, and barrier latency
 * for several job sizes. Starts the ranks itself (one JVM each, through {@link JobLauncher}); rank 0
 * also times the same-run reference (a plain {@code MemorySegment.copy} of the same size between two
 * native segments of one process) so every row has a ratio.
 */
@Command(
        name = "rma",
        mixinStandardHelpOptions = true,
        description =
                "One-sided RMA benchmark: put/get/put-with-signal (8 B - 64 MiB), atomics, barrier; ratio vs a same-run copy.")
public final class RmaBenchCommand implements Callable<Integer> {
    /** The native reference program when {@code --reference} is not given: {@code unicomm.rma.reference} / {@code UNICOMM_RMA_REFERENCE}. */
    static final String REFERENCE_KEY = "rma.reference";

    @Option(names = "--backend", defaultValue = "shm", description = "Backend to measure (default: ${DEFAULT-VALUE}).")
    String backend;

    @Option(
            names = "-n",
            defaultValue = "2",
            description = "Ranks of the RMA job (rank 0 -> rank 1; >= 2; default: ${DEFAULT-VALUE}).")
    int ranks;

    @Option(
            names = "--barrier-ranks",
            defaultValue = "2,4",
            split = ",",
            description = "Job sizes whose barrier latency is measured (default: ${DEFAULT-VALUE}).")
    List<Integer> barrierRanks;

    @Option(
            names = "--min-size",
            defaultValue = "8",
            description = "Smallest transfer (bytes, K/M/G suffix; default: ${DEFAULT-VALUE}).")
    String minSize;

    @Option(names = "--max-size", defaultValue = "64M", description = "Largest transfer (default: ${DEFAULT-VALUE}).")
    String maxSize;

    @Option(
            names = "--factor",
            defaultValue = "2",
            description = "Each size is this many times the previous (default: ${DEFAULT-VALUE}).")
    int factor;

    @Option(
            names = "--barrier-iters",
            defaultValue = "20000",
            description = "Barriers per timed batch (default: ${DEFAULT-VALUE}).")
    long barrierIters;

    @picocli.CommandLine.Mixin
    CsvOption csv = new CsvOption();

    @Option(
            names = "--reference",
            description =
                    "Device backends: the native reference program to run in the same job "
                            + "(benchmarks/reference/rma_ref built with nvcc; default: unicomm.rma.reference / $UNICOMM_RMA_REFERENCE). Without it the rows have no ratio.")
    Path reference;

    @Option(
            names = "--compare",
            paramLabel = "FILE",
            description = "BENCH lines of another implementation (benchmarks/reference/run_openshmem.sh writes them): "
                    + "adds a table of our time vs theirs for every matching row.")
    Path compare;

    @picocli.CommandLine.Mixin
    JfrOption jfr = new JfrOption();

    @picocli.CommandLine.Mixin
    PlotOption plot = new PlotOption();

    @Override
    public Integer call() throws IOException {
        if (ranks < 2) throw new IllegalArgumentException("-n must be >= 2 (rank 0 puts to rank 1), got " + ranks);
        BenchLimits.count("-n", ranks, 2, BenchLimits.MAX_RANKS);
        for (int b : barrierRanks) BenchLimits.count("--barrier-ranks", b, 1, BenchLimits.MAX_RANKS);
        BenchLimits.count("--barrier-iters", barrierIters, 1, BenchLimits.MAX_ITERATIONS);
        BenchLimits.count("--factor", factor, 2, 1024);
        List<Long> sizes = BenchReport.sizes(
                BenchLimits.size("--min-size", minSize, BenchLimits.MAX_SIZE),
                BenchLimits.size("--max-size", maxSize, BenchLimits.MAX_SIZE),
                factor);
        if (deviceHeap()) {
            // The heap is GPU memory: measure stream-ordered RMA of device buffers against the native reference.
            String configured = BackendSettings.fromEnvironment().get(REFERENCE_KEY);
            if (reference == null && configured != null) reference = Path.of(configured);
            System.err.println("bench rma: backend " + backend + " (device heap), 2 ranks, " + sizes.size() + " sizes "
                    + BenchReport.size(sizes.getFirst()) + " .. " + BenchReport.size(sizes.getLast())
                    + (reference == null ? ", no native reference (--reference)" : ", reference " + reference));
            List<BenchRow> rows = DeviceRmaBench.run(backend, sizes, reference);
            BenchReport.table(rows, System.out);
            csv.write(BenchReport.csvLines(rows));
            if (plot.wanted()) plot.write(plot(rows, backend), "unicomm bench rma (" + backend + ", device memory)");
            return 0;
        }
        long heap = sizes.getLast() + (4L << 20);
        String sizeList = sizes.stream().map(String::valueOf).collect(Collectors.joining(","));

        List<BenchRow> rows = new ArrayList<>();
        System.err.println("bench rma: backend " + backend + ", " + ranks + " ranks, " + sizes.size() + " sizes "
                + BenchReport.size(sizes.getFirst()) + " .. " + BenchReport.size(sizes.getLast()));
        rows.addAll(launch(ranks, heap, 3 * sizes.size() + 3, "rma", sizeList, Long.toString(barrierIters)));
        for (int b : barrierRanks) {
            if (b == ranks) continue; // already measured by the RMA job
            rows.addAll(launch(b, 4L << 20, 1, "barrier", Long.toString(barrierIters)));
        }
        BenchReport.table(rows, System.out);
        if (compare != null)
            Comparison.print(
                    rows, Comparison.read(compare), compare.getFileName().toString(), System.out);
        csv.write(BenchReport.csvLines(rows));
        if (plot.wanted()) plot.write(plot(rows, backend), "unicomm bench rma (" + backend + ")");
        return 0;
    }

    /** Whether the backend's heap lives in device memory (its provider declares a DEVICE_MEMORY_* capability). */
    private boolean deviceHeap() {
        return dev.unicomm.spi.BackendRegistry.load().providers().stream()
                .filter(p -> p.name().equals(backend))
                .findFirst()
                .map(p -> p.capabilities().contains(dev.unicomm.api.Capability.DEVICE_MEMORY_CUDA)
                        || p.capabilities().contains(dev.unicomm.api.Capability.DEVICE_MEMORY_ASCEND))
                .orElse(false);
    }

    /** One line per operation and job size; the same-run reference of each operation, dashed. */
    static BenchPlot plot(List<BenchRow> rows, String backend) {
        BenchPlot p = new BenchPlot();
        for (BenchRow r : rows) {
            if (r.bytes() <= 0) continue;
            p.add(
                    r.op() + " (" + backend + ", " + r.ranks() + " ranks)",
                    false,
                    r.bytes(),
                    r.nsPerOp() / 1000,
                    r.gbps());
            if (r.refNsPerOp() > 0)
                p.add("reference: " + r.reference(), true, r.bytes(), r.refNsPerOp() / 1000, r.refGbps());
        }
        return p;
    }

    /** Runs one job of the worker and returns the rows rank 0 printed. */
    private List<BenchRow> launch(int n, long heapBytes, int expectedRows, String... args) {
        JobSpec spec = JobSpec.of(n, RmaBenchWorker.class.getName(), args)
                .withBackend(backend)
                .withEnv(jfr.env(args[0] + "-n" + n, Map.of("UNICOMM_HEAP_SIZE", Long.toString(heapBytes))))
                .withCommTimeout(Duration.ofMinutes(10))
                .withJobTimeout(Duration.ofMinutes(30));
        return BenchJob.rows(
                        spec,
                        "bench rma (" + n + " ranks)",
                        expectedRows,
                        "BENCH,",
                        () -> jfr.report(args[0] + "-n" + n, n))
                .stream()
                .map(BenchRow::parse)
                .toList();
    }
}
