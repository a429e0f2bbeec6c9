package dev.unicomm.benchmarks.bench;

import dev.unicomm.api.MoeConfig;
import dev.unicomm.launch.JobLauncher;
import dev.unicomm.launch.JobResult;
import dev.unicomm.launch.JobSpec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code unicomm bench moe}: DeepEP's MoE test operations (normal dispatch/combine, low-latency
 * dispatch in BF16 and FP8, low-latency combine) on {@code -n} ranks, one JVM each. Reports time
 * and bandwidth per rank the way DeepEP's tests count bytes ({@code docs/spec/moe.md}), next
 * to the same-run copy bound (the same bytes each rank receives, copied from the peers' memory as
 * plain copies by all ranks at once, until the last rank is done; for a combine on the host, which
 * writes one row per token, the same bytes read from the peers and the output written once), and verifies the first results of every operation against
 * the kit's reference. Each operation is warmed up (on the host until its timings are steady, see
 * {@code Warmup}), then timed {@code --iters} (normal) or {@code --ll-iters} (low-latency) times
 * interleaved with its bound; the medians are reported. The defaults (5 and 10) keep the default
 * run, DeepEP's full shapes on 4 ranks, near two and a half minutes on a 2-core machine; raise them
 * for steadier figures.
 *
 * <p>Several {@code --tokens} / {@code --ll-tokens} values sweep the size: one job per value (normal
 * mode for each {@code --tokens}, low-latency mode for each {@code --ll-tokens}), which is what
 * {@code --plot} draws (bandwidth and time against bytes per rank, one line per operation, the copy
 * bound dashed).
 *
 * <p>GPU backends: {@code --gpu-time} runs the job a second time with the backend's kernel timing on
 * ({@code unicomm.nvshmem.moe.profile}: CUDA events around each operation's kernels; {@code --gpu-start}) and reports the
 * medians beside the host wall of the first run; {@code --roofline} runs {@code benchmarks/reference/nvlink_ref}
 * on the same GPUs first and reports each operation's floor ({@link MoeRoofline}) and the fraction of it
 * reached. The copy bound is no limit (a rank's local share needs no link): with a roofline the table
 * shows the floor instead (the CSV keeps both).
 */
@Command(
        name = "moe",
        mixinStandardHelpOptions = true,
        description =
                "MoE dispatch/combine benchmark with DeepEP's shapes; bandwidth vs a same-run copy bound; verified against the reference.")
public final class MoeBenchCommand implements Callable<Integer> {

    @picocli.CommandLine.Mixin
    JobOptions options = new JobOptions();

    @Option(
            names = "--tokens",
            defaultValue = "4096",
            split = ",",
            description =
                    "Tokens per rank, normal mode; several values (1024,2048,4096) run one job each (default: ${DEFAULT-VALUE}).")
    List<Integer> tokens;

    @Option(names = "--hidden", defaultValue = "7168", description = "Hidden size (default: ${DEFAULT-VALUE}).")
    int hidden;

    @Option(names = "--topk", defaultValue = "8", description = "Experts per token (default: ${DEFAULT-VALUE}).")
    int topk;

    @Option(names = "--experts", defaultValue = "256", description = "Experts in the job (default: ${DEFAULT-VALUE}).")
    int experts;

    @Option(
            names = "--shape",
            description = "Model shape presets, comma-separated, one table each (set --hidden, --topk and --experts, "
                    + "over any given): deepseek-v3, kimi-k2, qwen3-moe, top16, top22, h2048-e1024, top1, top32.")
    String shape;

    @Option(
            names = "--sms",
            split = ",",
            description =
                    "GPU backends: blocks per normal-mode kernel (unicomm.nvshmem.moe.sms), one run per value, e.g. 4,6,8,24,64.")
    List<Integer> sms;

    @Option(
            names = "--ll-sms",
            split = ",",
            description =
                    "GPU backends: blocks per low-latency kernel (unicomm.nvshmem.moe.ll.sms), one run per value; "
                            + "with --sms, paired by position.")
    List<Integer> llSms;

    @Option(
            names = "--ll-tokens",
            defaultValue = "128",
            split = ",",
            description =
                    "Tokens per rank, low-latency mode; several values run one job each (default: ${DEFAULT-VALUE}).")
    List<Integer> llTokens;

    @Option(
            names = "--iters",
            defaultValue = "5",
            description = "Timed iterations, normal mode; the median is reported (default: ${DEFAULT-VALUE}).")
    int iters;

    @Option(
            names = "--ll-iters",
            defaultValue = "10",
            description = "Timed iterations, low-latency mode (default: ${DEFAULT-VALUE}).")
    int llIters;

    @Option(
            names = "--mode",
            defaultValue = "normal,ll",
            description = "Which modes: normal, ll or both (default: ${DEFAULT-VALUE}).")
    String mode;

    @Option(
            names = "--inactive",
            defaultValue = "0",
            description =
                    "Backends with MOE_ACTIVE_MASK: after each mode's rounds, time the routed BF16 dispatch and the combine "
                            + "again on the same buffer with its last N ranks inactive (MoeBuffer.setActiveRanks), rows '... (N inactive)' "
                            + "beside the all-active ones; their bound columns are empty (default: ${DEFAULT-VALUE}).")
    int inactive;

    @Option(names = "--no-verify", description = "Skip the verification against the reference (pure timing).")
    boolean noVerify;

    @Option(names = "--seed", defaultValue = "1", description = "Data and routing seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @picocli.CommandLine.Mixin
    CsvOption csv = new CsvOption();

    @Option(
            names = "--gpu-time",
            description =
                    "GPU backends: run the job again with kernel timing (CUDA events) and report it beside the host wall.")
    boolean gpuTime;

    /** Where each timed operation's CUDA events start (unicomm.nvshmem.moe.profile). */
    enum GpuStart {
        aligned,
        launch
    }

    @Option(
            names = "--gpu-start",
            defaultValue = "aligned",
            description =
                    "With --gpu-time: 'aligned' (default) queues each timed operation behind a short device wait and a barrier "
                            + "of all ranks, as DeepEP's bench does, so the events hold neither the launch gap nor the ranks' host skew; "
                            + "'launch' starts the events as the host launches.")
    GpuStart gpuStart;

    @Option(
            names = "--ll-stream",
            description =
                    "GPU backends, low-latency mode: also time the FP8 dispatch + BF16 combine pair as one, "
                            + "host-sequenced (each call awaits its receive) against stream-ordered (both queued on one stream, one synchronize), on buffers of their own.")
    boolean llStream;

    @Option(
            names = "--roofline",
            description =
                    "GPU backends: the bandwidth program (benchmarks/reference/nvlink_ref built with nvcc) to run "
                            + "on the same GPUs first; rows then show their floor and the fraction of it reached.")
    Path roofline;

    /**
     * One operation's figures at one token count, averaged over ranks: host wall {@code ns}, the copy bound,
     * and where measured ({@code NaN} otherwise) the kernels' GPU time and the roofline floor.
     */
    record Row(
            String op,
            int tokens,
            double bytes,
            double ns,
            double boundNs,
            String verified,
            long footprint,
            double gpuNs,
            double floorNs) {
        Row(String op, int tokens, double bytes, double ns, double boundNs, String verified, long footprint) {
            this(op, tokens, bytes, ns, boundNs, verified, footprint, Double.NaN, Double.NaN);
        }

        double gbps() {
            return bytes / ns;
        }

        double boundGbps() {
            return bytes / boundNs;
        }

        double ratio() {
            return boundNs / ns;
        }
        /** Fraction of the roofline the host wall reaches (floor / time). */
        double roofFraction() {
            return floorNs / ns;
        }

        double gpuRoofFraction() {
            return floorNs / gpuNs;
        }

        Row withGpuNs(double v) {
            return new Row(op, tokens, bytes, ns, boundNs, verified, footprint, v, floorNs);
        }
    }

    @picocli.CommandLine.Mixin
    JfrOption jfr = new JfrOption();

    @picocli.CommandLine.Mixin
    PlotOption plot = new PlotOption();

    /** One job of the run: token counts per rank and the modes it measures. */
    record Job(int tokens, int llTokens, boolean normal, boolean ll) {
        String tag() {
            return (normal ? "t" + tokens : "") + (normal && ll ? "-" : "") + (ll ? "ll" + llTokens : "");
        }

        /**
         * MOE lines the job prints: one per operation and rank (each mode: dispatch, combine, and an FP8 dispatch
         * when hidden % 128 == 0; normal mode also the dispatches reusing a handle, BF16 and FP8).
         */
        int expectedLines(int ranks, int hidden, int inactive) {
            int perMode = hidden % 128 == 0 ? 3 : 2;
            int masked = inactive > 0 ? (ranks - inactive) * 2 * ((normal ? 1 : 0) + (ll ? 1 : 0)) : 0;
            return ranks * ((normal ? 2 * perMode - 1 : 0) + (ll ? perMode : 0)) + masked;
        }
    }

    @Override
    public Integer call() throws IOException {
        List<MoeSmsSweep> budgets = MoeSmsSweep.of(sms, llSms);
        if (shape == null) return call(budgets);
        List<MoeShape> shapes = MoeShape.parse(shape);
        for (MoeShape s : shapes)
            if (s.unfitFor(options.ranks) != null) throw new IllegalArgumentException(s.unfitFor(options.ranks));
        Path csvFile = csv.file;
        try {
            for (MoeShape s : shapes) {
                hidden = s.hidden();
                topk = s.topk();
                experts = s.experts();
                if (csvFile != null && shapes.size() > 1) csv.file = s.fileFor(csvFile); // one CSV per shape
                System.out.println("\nshape " + s.name() + ": " + s.what());
                int rc = call(budgets);
                if (rc != 0) return rc;
            }
        } finally {
            csv.file = csvFile;
        }
        return 0;
    }

    /** The run at the current shape, once per block budget. */
    private Integer call(List<MoeSmsSweep> budgets) throws IOException {
        BenchLimits.count("-n", options.ranks, 1, BenchLimits.MAX_RANKS);
        BenchLimits.count("--experts", experts, 1, 1 << 16);
        BenchLimits.count("--topk", topk, 1, Math.min(experts, 1024));
        BenchLimits.count("--hidden", hidden, 1, 1 << 16);
        BenchLimits.count("--iters", iters, 1, BenchLimits.MAX_ITERATIONS);
        BenchLimits.count("--ll-iters", llIters, 1, BenchLimits.MAX_ITERATIONS);
        if (inactive < 0 || inactive >= options.ranks)
            throw new IllegalArgumentException("--inactive " + inactive + " must be 0 or leave at least one of the "
                    + options.ranks + " ranks active");
        for (int t : tokens) BenchLimits.count("--tokens", t, 1, 1 << 20);
        for (int t : llTokens) BenchLimits.count("--ll-tokens", t, 1, 1 << 16);
        if (experts % options.ranks != 0)
            throw new IllegalArgumentException("--experts " + experts + " must be divisible by -n " + options.ranks);
        if (iters < 1 || llIters < 1) throw new IllegalArgumentException("--iters and --ll-iters must be >= 1");
        for (int t : tokens) if (t < 1) throw new IllegalArgumentException("--tokens entries must be >= 1, got " + t);
        for (int t : llTokens)
            if (t < 1) throw new IllegalArgumentException("--ll-tokens entries must be >= 1, got " + t);
        boolean normal = mode.contains("normal"), ll = mode.contains("ll");
        if (!normal && !ll) throw new IllegalArgumentException("--mode must name normal and/or ll, got " + mode);
        if (llStream && (!ll || hidden % 128 != 0))
            throw new IllegalArgumentException(
                    "--ll-stream times the low-latency FP8 dispatch: it needs --mode with ll and --hidden a multiple of 128");
        List<Job> jobs = jobs(normal, ll);
        String loadBefore = LoadAverage.now();
        CpuSteal.Ticks stealBefore = CpuSteal.now();
        if (plot.wanted() && jobs.size() < 2)
            throw new IllegalArgumentException(
                    "--plot draws bandwidth against size: give several token counts, e.g. --tokens 1024,2048,4096"
                            + " and/or --ll-tokens 32,64,128");
        if (roofline != null) {
            roof = MoeRoofline.measure(roofline, options.ranks, Map.of("NVSHMEM_DISABLE_NVLS", "1"));
            roof.lines().forEach(System.err::println);
        }
        List<Row> rows = new ArrayList<>();
        for (MoeSmsSweep budget : budgets)
            for (Job job : jobs) {
                List<Row> r = run(job, false, budget);
                if (r == null) return 1;
                if (gpuTime) {
                    List<Row> timed = run(job, true, budget);
                    if (timed == null) return 1;
                    r = withGpuTimes(r);
                }
                for (Row row : r)
                    rows.add(new Row(
                            budget.label(row.op()),
                            row.tokens(),
                            row.bytes(),
                            row.ns(),
                            row.boundNs(),
                            row.verified(),
                            row.footprint(),
                            row.gpuNs(),
                            row.floorNs()));
            }
        print(rows);
        if (!hostTraffic.isEmpty()) System.out.println(InterHostTraffic.report(hostTraffic));
        printMemory(normal, ll);
        System.out.println("load average: before " + loadBefore + ", after " + LoadAverage.now());
        System.out.println("cpu steal (time the hypervisor gave other guests) during the run: "
                + CpuSteal.between(stealBefore, CpuSteal.now()));
        if (csv.wanted()) {
            List<String> lines = new ArrayList<>();
            lines.add(
                    "op,ranks,bytes_per_rank,us,gb_per_s,bound_us,bound_gb_per_s,ratio,verified,footprint_bytes,tokens_per_rank,"
                            + "gpu_us,floor_us,roofline_fraction,gpu_roofline_fraction");
            for (Row r : rows)
                lines.add(String.format(
                                Locale.ROOT,
                                "%s,%d,%.0f,%.1f,%.3f,%.1f,%.3f,%.3f,%s,%d,%d,%.1f,%.1f,%.3f,%.3f",
                                r.op(),
                                options.ranks,
                                r.bytes(),
                                r.ns() / 1e3,
                                r.gbps(),
                                r.boundNs() / 1e3,
                                r.boundGbps(),
                                r.ratio(),
                                r.verified(),
                                r.footprint(),
                                r.tokens(),
                                r.gpuNs() / 1e3,
                                r.floorNs() / 1e3,
                                r.roofFraction(),
                                r.gpuRoofFraction())
                        .replace("NaN", ""));
            csv.write(lines);
        }
        if (plot.wanted())
            plot.write(
                    plot(rows, options.backend, options.ranks),
                    "unicomm bench moe (" + options.backend + ", " + options.ranks + " ranks, hidden " + hidden + ")");
        return 0;
    }

    /** One job for a single size of each mode (the default run); else one job per token count and mode. */
    List<Job> jobs(boolean normal, boolean ll) {
        if (tokens.size() == 1 && llTokens.size() == 1)
            return List.of(new Job(tokens.getFirst(), llTokens.getFirst(), normal, ll));
        List<Job> jobs = new ArrayList<>();
        if (normal) for (int t : tokens) jobs.add(new Job(t, llTokens.getFirst(), true, false));
        if (ll) for (int t : llTokens) jobs.add(new Job(tokens.getFirst(), t, false, true));
        return jobs;
    }

    /**
     * Bandwidth and time per operation against bytes per rank; the copy bounds dashed (one per kind of
     * transfer: BF16 dispatch and combine of a mode move the same bytes and share theirs; FP8 has its own).
     */
    static BenchPlot plot(List<Row> rows, String backend, int ranks) {
        BenchPlot p = new BenchPlot("bytes received per rank", "time per call (µs)");
        for (Row r : rows) {
            p.add(
                    r.op() + " (" + backend + ", " + ranks + " ranks)",
                    false,
                    Math.round(r.bytes()),
                    r.ns() / 1e3,
                    r.gbps());
            String kind = (r.op().startsWith("normal") ? "normal" : "low-latency")
                    + (r.op().contains("fp8") ? " fp8" : " bf16");
            p.add("bound, " + kind + ": plain copies", true, Math.round(r.bytes()), r.boundNs() / 1e3, r.boundGbps());
        }
        return p;
    }

    /** The same-run roofline, or null without --roofline. */
    private MoeRoofline roof;

    /** Runs one job; its rows, or null when it failed (its output has been printed). {@code profiled}: with kernel timing, unverified. */
    private List<Row> run(Job job, boolean profiled, MoeSmsSweep budget) {
        // The kernel-timed run leaves the masked rounds out: its GPU medians are per operation name.
        int masked = profiled ? 0 : inactive;
        MoeConfig n = new MoeConfig(MoeConfig.Mode.NORMAL, experts, hidden, job.tokens(), topk, false);
        MoeConfig l =
                new MoeConfig(MoeConfig.Mode.LOW_LATENCY, experts, hidden, job.llTokens(), topk, hidden % 128 == 0);
        // normal: the MoE buffer, the bounds' copy of x and (host) the push bound's destination, every row received
        long normalBytes = job.normal()
                ? n.sizeHint(options.ranks) + (1L + options.ranks) * job.tokens() * 2 * hidden + (8L << 20)
                : 0;
        long llBytes = job.ll() ? l.sizeHint(options.ranks) + (long) job.llTokens() * 2 * hidden : 0;
        if (llStream) llBytes += l.sizeHint(options.ranks); // --ll-stream: two buffers at once
        // --inactive: the inactive rank leaves each buffer open (MoeMaskedRounds.open), so both modes' blocks stay.
        long heap = (masked > 0 ? normalBytes + llBytes : Math.max(normalBytes, llBytes)) + (16L << 20);

        System.err.printf(
                Locale.ROOT,
                "bench moe: backend %s, %d ranks; hidden %d, top-%d of %d experts; %s%s%n",
                options.backend,
                options.ranks,
                hidden,
                topk,
                experts,
                job.normal()
                        ? String.format(
                                Locale.ROOT,
                                "normal: %d tokens/rank (symmetric buffer %s/rank)",
                                job.tokens(),
                                BenchReport.size(n.sizeHint(options.ranks)))
                        : "",
                job.ll()
                        ? String.format(
                                Locale.ROOT,
                                "%slow-latency: %d tokens/rank (symmetric buffer %s/rank)",
                                job.normal() ? "; " : "",
                                job.llTokens(),
                                BenchReport.size(l.sizeHint(options.ranks)))
                        : "");
        String modes = (job.normal() ? "normal" : "")
                + (job.normal() && job.ll() ? "," : "")
                + (job.ll() ? "ll" : "")
                + (job.ll() && llStream ? ",stream" : "");
        JobSpec spec = options.spec(
                        MoeBenchWorker.class,
                        Integer.toString(experts),
                        Integer.toString(hidden),
                        Integer.toString(job.tokens()),
                        Integer.toString(topk),
                        Integer.toString(job.llTokens()),
                        Integer.toString(iters),
                        Integer.toString(llIters),
                        noVerify || profiled ? "0" : "1",
                        Long.toString(seed),
                        modes,
                        Integer.toString(masked))
                // The portable MoE's reductions run about three times faster on the Vector API.
                .withJvmOptions(List.of("--add-modules", "jdk.incubator.vector"))
                .withEnv(withBudget(
                        budget,
                        profiled
                                ? Map.of(
                                        "UNICOMM_HEAP_SIZE",
                                        Long.toString(heap),
                                        "UNICOMM_NVSHMEM_MOE_PROFILE",
                                        gpuStart.name())
                                : jfr.env(jfrTag(job), Map.of("UNICOMM_HEAP_SIZE", Long.toString(heap)))))
                .withCommTimeout(Duration.ofMinutes(2))
                .withJobTimeout(Duration.ofMinutes(10));
        ByteArrayOutputStream captured = new ByteArrayOutputStream(), capturedErr = new ByteArrayOutputStream();
        JobResult result;
        String what =
                "bench moe (" + options.ranks + " ranks, " + job.tag() + (profiled ? ", kernel timing" : "") + ")";
        try (Progress progress = Progress.start(what, job.expectedLines(options.ranks, hidden, masked));
                PrintStream out = new PrintStream(progress.counting(captured, "MOE,"), true, StandardCharsets.UTF_8);
                PrintStream err = withoutIncubatorNotice(
                        profiled ? new PrintStream(capturedErr, true, StandardCharsets.UTF_8) : System.err)) {
            result = JobLauncher.run(spec, out, err);
        }
        if (profiled) {
            // The kernel times (MOEPROF,rank,op: <operation>,median us,...) go to stderr when each buffer closes.
            for (String line : capturedErr.toString(StandardCharsets.UTF_8).split("\n")) {
                int at = line.indexOf("MOEPROF,");
                if (at < 0) System.err.println(line);
                else {
                    System.err.println(line);
                    String[] f = line.substring(at).strip().split(",");
                    if (f.length >= 4 && f[2].startsWith("op: "))
                        gpuMedians
                                .computeIfAbsent(f[2].substring(4), k -> new ArrayList<>())
                                .add(Double.parseDouble(f[3]) * 1e3);
                }
            }
        } else jfr.report(jfrTag(job), options.ranks);
        Map<String, List<String[]>> byOp = new LinkedHashMap<>();
        for (String line : captured.toString(StandardCharsets.UTF_8).split("\n")) {
            int at = line.indexOf("MOE,"),
                    split = line.indexOf("MOESPLIT,"),
                    quant = line.indexOf("MOEQUANT,"),
                    pair = line.indexOf("MOEPAIR,");
            int hostsAt = line.indexOf("MOEHOSTS,");
            if (hostsAt >= 0) {
                hostTraffic.add(line.substring(hostsAt).strip().split(","));
            } else if (pair >= 0) {
                addPair(pairs, line.substring(pair), job);
                pairsVerified &= line.strip().endsWith(",ok");
            } else if (quant >= 0) {
                addPair(quantised, line.substring(quant), job);
            } else if (split >= 0) {
                if (profiled) continue; // the host split of the kernel-timed run is slowed by its event reads
                addPair(splits, line.substring(split), job);
            } else if (at >= 0) {
                String[] f = line.substring(at).strip().split(",");
                byOp.computeIfAbsent(f[1], k -> new ArrayList<>()).add(f);
            } else if (!line.isBlank()) System.err.println(line);
        }
        if (result.exitCode() != 0) {
            System.err.println("bench moe: the job failed (exit code " + result.exitCode() + ", first failed rank "
                    + result.failedRank() + "); its output is above");
            return null;
        }
        List<Row> rows = new ArrayList<>();
        for (var e : byOp.entrySet()) {
            List<String[]> f = e.getValue();
            double bytes =
                    f.stream().mapToLong(a -> Long.parseLong(a[3])).average().orElse(0);
            double ns =
                    f.stream().mapToLong(a -> Long.parseLong(a[4])).average().orElse(0);
            double bound =
                    f.stream().mapToLong(a -> Long.parseLong(a[5])).average().orElse(0);
            if (bound <= 0) bound = Double.NaN; // rows without a bound (--inactive)
            String verified = f.stream().allMatch(a -> a[6].equals("ok")) ? "yes" : "skipped";
            int t = e.getKey().startsWith("ll ") ? job.llTokens() : job.tokens();
            double floor = roof == null
                    ? Double.NaN
                    : f.stream()
                            .mapToDouble(a ->
                                    roof.floorNs(Long.parseLong(a[8]), Long.parseLong(a[9]), Long.parseLong(a[10])))
                            .average()
                            .orElse(Double.NaN);
            rows.add(
                    new Row(e.getKey(), t, bytes, ns, bound, verified, Long.parseLong(f.get(0)[7]), Double.NaN, floor));
        }
        return rows;
    }

    /** Memory per PE of this shape: MoeConfig.sizeHint beside DeepEP V1's size hints for the same shape. */
    private void printMemory(boolean normal, boolean ll) {
        int r = options.ranks;
        if (normal) {
            long deepEp = DeepEpSizeHint.normal(hidden, r);
            for (int t : tokens)
                System.out.printf(
                        Locale.ROOT,
                        "memory per PE, normal, %d tokens: MoeConfig.sizeHint %s; DeepEP V1 %s%n",
                        t,
                        BenchReport.size(
                                new MoeConfig(MoeConfig.Mode.NORMAL, experts, hidden, t, topk, false).sizeHint(r)),
                        deepEp < 0
                                ? "n/a (its buffer past one node is NVLink + RDMA, not derived here)"
                                : BenchReport.size(deepEp)
                                        + " (NVLink buffer of its default configs, independent of tokens)");
        }
        if (ll)
            for (int t : llTokens)
                System.out.printf(
                        Locale.ROOT,
                        "memory per PE, low-latency, %d tokens: MoeConfig.sizeHint %s; DeepEP V1 get_low_latency_rdma_size_hint %s%n",
                        t,
                        BenchReport.size(
                                new MoeConfig(MoeConfig.Mode.LOW_LATENCY, experts, hidden, t, topk, hidden % 128 == 0)
                                        .sizeHint(r)),
                        BenchReport.size(DeepEpSizeHint.lowLatency(t, hidden, r, experts)));
    }

    /** {@code env} with the block budget's settings added. */
    private static Map<String, String> withBudget(MoeSmsSweep budget, Map<String, String> env) {
        Map<String, String> all = new LinkedHashMap<>(env);
        all.putAll(budget.env());
        return all;
    }

    /** A worker's {@code TAG,op,rank,first,second} line: the two figures under "op (T tokens)". */
    private static void addPair(Map<String, List<double[]>> into, String line, Job job) {
        String[] f = line.strip().split(",");
        into.computeIfAbsent(f[1] + " (" + job.llTokens() + " tokens)", k -> new ArrayList<>())
                .add(new double[] {Double.parseDouble(f[3]), Double.parseDouble(f[4])});
    }

    /** Column {@code i} of the ranks' pairs, averaged. */
    private static double mean(List<double[]> pairs, int i) {
        return pairs.stream().mapToDouble(a -> a[i]).average().orElse(0);
    }

    /** Host-timed send / receive-hook split of low-latency dispatches (median ns per rank) from the host-timed jobs. */
    private final Map<String, List<double[]>> splits = new LinkedHashMap<>();
    /** Normal mode: every rank's MOEHOSTS line (algorithm, bytes across hosts of both algorithms). */
    private final List<String[]> hostTraffic = new ArrayList<>();

    /** Host: the CPU quantiser alone on a low-latency FP8 dispatch's tokens, and that dispatch's bound (median ns per rank). */
    private final Map<String, List<double[]>> quantised = new LinkedHashMap<>();

    /** --ll-stream: the low-latency pair timed host-sequenced and stream-ordered (median ns per rank). */
    private final Map<String, List<double[]>> pairs = new LinkedHashMap<>();

    private boolean pairsVerified = true;

    /** Kernel-timing medians per operation (one per rank) of the latest profiled job, in ns. */
    private final Map<String, List<Double>> gpuMedians = new LinkedHashMap<>();

    /** The host-timed rows with the kernel times of the profiled run beside them (averaged over ranks). */
    private List<Row> withGpuTimes(List<Row> rows) {
        List<Row> out = new ArrayList<>();
        for (Row r : rows) {
            List<Double> v = gpuMedians.get(r.op());
            out.add(
                    v == null || v.isEmpty()
                            ? r
                            : r.withGpuNs(v.stream()
                                    .mapToDouble(Double::doubleValue)
                                    .average()
                                    .orElse(Double.NaN)));
        }
        gpuMedians.clear();
        return out;
    }

    /** The single default job keeps the recordings' old names (FILE-n4-rank0.jfr); sweeps add the job. */
    private String jfrTag(Job job) {
        return tokens.size() == 1 && llTokens.size() == 1 ? "n" + options.ranks : "n" + options.ranks + "-" + job.tag();
    }

    /** The JVM's one-line notice that an incubator module is in use, printed by every rank, is noise here. */
    private static PrintStream withoutIncubatorNotice(PrintStream target) {
        return new PrintStream(
                new java.io.OutputStream() {
                    private final ByteArrayOutputStream line = new ByteArrayOutputStream();

                    @Override
                    public void write(int b) {
                        line.write(b);
                        if (b == '\n') flushLine();
                    }

                    private void flushLine() {
                        String s = line.toString(StandardCharsets.UTF_8);
                        line.reset();
                        if (!s.contains("Using incubator modules")) target.print(s);
                    }

                    @Override
                    public void close() {
                        if (line.size() > 0) flushLine();
                        target.flush();
                    }
                },
                true,
                StandardCharsets.UTF_8);
    }

    private void print(List<Row> rows) {
        if (roof != null) {
            printWithRoofline(rows);
            return;
        }
        System.out.printf(
                Locale.ROOT,
                "%nMoE dispatch/combine: backend %s, %d ranks (figures per rank, averaged over ranks; "
                        + "bound = the same bytes as plain copies by all ranks at once, until the last rank is done: pulled from peer memory, "
                        + "except a normal dispatch on the host: each token's row read once and pushed to every rank that gets it; "
                        + "combine on the host: the same bytes read from all peers at once plus the output written once, and the combine itself timed until the last rank returned; no synchronisation timed; same run)%n",
                options.backend,
                options.ranks);
        // --gpu-time without --roofline: the kernels' GPU time is a column of its own (host wall stays "time").
        boolean gpu = rows.stream().anyMatch(r -> !Double.isNaN(r.gpuNs()));
        String fmt = "%-26s %6s %12s %11s %9s %11s %9s %7s %9s %11s" + (gpu ? " %9s%n" : "%s%n");
        System.out.printf(
                Locale.ROOT,
                fmt,
                "operation",
                "tokens",
                "bytes/rank",
                "time (us)",
                "GB/s",
                "bound (us)",
                "bound GB/s",
                "ratio",
                "verified",
                "buffer",
                gpu ? "GPU (us)" : "");
        for (Row r : rows)
            System.out.printf(
                    Locale.ROOT,
                    fmt,
                    r.op(),
                    r.tokens(),
                    BenchReport.size((long) r.bytes()),
                    String.format(Locale.ROOT, "%.1f", r.ns() / 1e3),
                    String.format(Locale.ROOT, "%.2f", r.gbps()),
                    r.boundNs() > 0 ? String.format(Locale.ROOT, "%.1f", r.boundNs() / 1e3) : "-",
                    r.boundNs() > 0 ? String.format(Locale.ROOT, "%.2f", r.boundGbps()) : "-",
                    r.boundNs() > 0 ? String.format(Locale.ROOT, "%.2f", r.ratio()) : "-",
                    r.verified(),
                    BenchReport.size(r.footprint()),
                    gpu ? us(r.gpuNs()) : "");
        printLowLatencyTotals(rows);
    }

    /** Host wall and (with --gpu-time) GPU time beside the same-run floor; fractions of the roofline (floor / time). */
    private void printWithRoofline(List<Row> rows) {
        System.out.printf(
                Locale.ROOT,
                "%nMoE dispatch/combine: backend %s, %d ranks (figures per rank, averaged over ranks; host = wall time of the Java call; "
                        + "GPU = CUDA events around the operation's kernels, second run, %s; %s)%n",
                options.backend,
                options.ranks,
                gpuStartNote(),
                roof.describe());
        String fmt = "%-26s %6s %10s %10s %8s %9s %8s %10s %10s %9s %9s%n";
        System.out.printf(
                Locale.ROOT,
                fmt,
                "operation",
                "tokens",
                "bytes/rank",
                "host (us)",
                "GB/s",
                "GPU (us)",
                "GB/s",
                "floor (us)",
                "frac host",
                "frac GPU",
                "verified");
        boolean above = false;
        for (Row r : rows) {
            above |= r.roofFraction() > 1 || r.gpuRoofFraction() > 1;
            System.out.printf(
                    Locale.ROOT,
                    fmt,
                    r.op(),
                    r.tokens(),
                    BenchReport.size((long) r.bytes()),
                    us(r.ns()),
                    String.format(Locale.ROOT, "%.1f", r.gbps()),
                    us(r.gpuNs()),
                    Double.isNaN(r.gpuNs()) ? "-" : String.format(Locale.ROOT, "%.1f", r.bytes() / r.gpuNs()),
                    us(r.floorNs()),
                    frac(r.roofFraction()),
                    frac(r.gpuRoofFraction()),
                    r.verified());
        }
        if (above)
            System.out.println(
                    "WARNING: an operation beat its floor: the roofline's bandwidths were measured too low (see "
                            + roofline + ")");
        printLowLatencyTotals(rows);
    }

    private String gpuStartNote() {
        return gpuStart == GpuStart.aligned
                ? "each started behind a device barrier of all ranks (--gpu-start aligned)"
                : "started as the host launched (--gpu-start launch)";
    }

    private static String us(double ns) {
        return Double.isNaN(ns) ? "-" : String.format(Locale.ROOT, "%.1f", ns / 1e3);
    }

    private static String frac(double f) {
        return Double.isNaN(f) ? "-" : String.format(Locale.ROOT, "%.2f", f);
    }

    private void printLowLatencyTotals(List<Row> rows) {
        splits.forEach((op, v) -> System.out.printf(
                Locale.ROOT,
                "%s, host wall split: call returns (sends issued) after %.1f us, receive hook %.1f us (medians, averaged over ranks)%n",
                op,
                mean(v, 0) / 1e3,
                mean(v, 1) / 1e3));
        quantised.forEach((op, v) -> {
            double q = mean(v, 0), b = mean(v, 1);
            System.out.printf(
                    Locale.ROOT,
                    "%s: quantising its tokens alone (the CPU quantiser, every rank at once, until the last) %.1f us = %.2f of its bound,"
                            + " which moves only the FP8 bytes (medians, averaged over ranks)%n",
                    op,
                    q / 1e3,
                    b > 0 ? q / b : Double.NaN);
        });
        Map<Integer, Double> llBf16 = new java.util.TreeMap<>();
        for (Row r : rows)
            if (r.op().equals("ll dispatch bf16") || r.op().equals("ll combine"))
                llBf16.merge(r.tokens(), r.ns(), Double::sum);
        llBf16.forEach((t, ns) -> System.out.printf(
                Locale.ROOT, "low-latency dispatch + combine (bf16, %d tokens): %.2f ms%n", t, ns / 1e6));
        Map<Integer, double[]> llFp8 =
                new java.util.TreeMap<>(); // {host, GPU}: FP8 dispatch + BF16 combine, DeepEP's pairing
        for (Row r : rows) {
            if (!r.op().equals("ll dispatch fp8") && !r.op().equals("ll combine")) continue;
            double[] v = llFp8.computeIfAbsent(r.tokens(), k -> new double[2]);
            v[0] += r.ns();
            v[1] += r.gpuNs();
        }
        llFp8.forEach((t, v) -> System.out.printf(
                Locale.ROOT,
                "low-latency FP8 dispatch + BF16 combine (%d tokens): host %.1f us%s%n",
                t,
                v[0] / 1e3,
                Double.isNaN(v[1]) ? "" : ", GPU " + us(v[1]) + " us"));
        pairs.forEach((op, v) -> System.out.printf(
                Locale.ROOT,
                "%s, timed as one pair (each rank from its start to its last result): host-sequenced, "
                        + "each call awaiting its receive, %.1f us; stream-ordered, both queued on one stream and one synchronize, %.1f us "
                        + "(--ll-stream; medians, averaged over ranks; %s)%n",
                op,
                mean(v, 0) / 1e3,
                mean(v, 1) / 1e3,
                pairsVerified ? "both ways verified against the reference" : "not verified: --no-verify"));
    }
}
