package dev.unicomm.cli.bench;

import dev.unicomm.api.MoeConfig;
import dev.unicomm.core.JobLauncher;
import dev.unicomm.core.JobResult;
import dev.unicomm.core.JobSpec;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
 * and bandwidth per rank the way DeepEP's tests count bytes ({@code notes/moe-semantics.md}), next
 * to the same-run copy bound (the same bytes each rank receives, copied from the peers' memory as
 * plain copies by all ranks at once, until the last rank is done), and verifies the first results of every operation against
 * the kit's reference. Each operation is warmed up, then timed {@code --iters} (normal) or
 * {@code --ll-iters} (low-latency) times interleaved with its bound; the median is reported. The
 * defaults (5 and 10) keep the default run, DeepEP's full shapes on 4 ranks, near a minute on
 * a 2-core machine; raise them for steadier figures.
 *
 * <p>Several {@code --tokens} / {@code --ll-tokens} values sweep the size: one job per value (normal
 * mode for each {@code --tokens}, low-latency mode for each {@code --ll-tokens}), which is what
 * {@code --plot} draws (bandwidth and time against bytes per rank, one line per operation, the copy
 * bound dashed).
 */
@Command(name = "moe", mixinStandardHelpOptions = true,
        description = "MoE dispatch/combine benchmark with DeepEP's shapes; bandwidth vs a same-run copy bound; verified against the reference.")
public final class MoeBenchCommand implements Callable<Integer> {

    @Option(names = "--backend", defaultValue = "shm", description = "Backend (default: ${DEFAULT-VALUE}).")
    String backend;

    @Option(names = "-n", defaultValue = "4", description = "Ranks (default: ${DEFAULT-VALUE}).")
    int ranks;

    @Option(names = "--tokens", defaultValue = "4096", split = ",",
            description = "Tokens per rank, normal mode; several values (1024,2048,4096) run one job each (default: ${DEFAULT-VALUE}).")
    List<Integer> tokens;

    @Option(names = "--hidden", defaultValue = "7168", description = "Hidden size (default: ${DEFAULT-VALUE}).")
    int hidden;

    @Option(names = "--topk", defaultValue = "8", description = "Experts per token (default: ${DEFAULT-VALUE}).")
    int topk;

    @Option(names = "--experts", defaultValue = "256", description = "Experts in the job (default: ${DEFAULT-VALUE}).")
    int experts;

    @Option(names = "--ll-tokens", defaultValue = "128", split = ",",
            description = "Tokens per rank, low-latency mode; several values run one job each (default: ${DEFAULT-VALUE}).")
    List<Integer> llTokens;

    @Option(names = "--iters", defaultValue = "5", description = "Timed iterations, normal mode; the median is reported (default: ${DEFAULT-VALUE}).")
    int iters;

    @Option(names = "--ll-iters", defaultValue = "10", description = "Timed iterations, low-latency mode (default: ${DEFAULT-VALUE}).")
    int llIters;

    @Option(names = "--mode", defaultValue = "normal,ll", description = "Which modes: normal, ll or both (default: ${DEFAULT-VALUE}).")
    String mode;

    @Option(names = "--no-verify", description = "Skip the verification against the reference (pure timing).")
    boolean noVerify;

    @Option(names = "--seed", defaultValue = "1", description = "Data and routing seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--csv", description = "Also write the rows as CSV to this file.")
    Path csv;

    /** One operation's figures at one token count, averaged over ranks. */
    record Row(String op, int tokens, double bytes, double ns, double boundNs, String verified, long footprint) {
        double gbps() { return bytes / ns; }
        double boundGbps() { return bytes / boundNs; }
        double ratio() { return boundNs / ns; }
    }

    @picocli.CommandLine.Mixin
    JfrOption jfr = new JfrOption();

    @picocli.CommandLine.Mixin
    PlotOption plot = new PlotOption();

    /** One job of the run: token counts per rank and the modes it measures. */
    record Job(int tokens, int llTokens, boolean normal, boolean ll) {
        String tag() { return (normal ? "t" + tokens : "") + (normal && ll ? "-" : "") + (ll ? "ll" + llTokens : ""); }

        /** MOE lines the job prints: one per operation and rank (each mode: dispatch, combine, and an FP8 dispatch when hidden % 128 == 0). */
        int expectedLines(int ranks, int hidden) {
            int perMode = hidden % 128 == 0 ? 3 : 2;
            return ranks * ((normal ? perMode : 0) + (ll ? perMode : 0));
        }
    }

    @Override public Integer call() throws IOException {
        if (ranks < 1) throw new IllegalArgumentException("-n must be >= 1, got " + ranks);
        if (experts % ranks != 0) throw new IllegalArgumentException("--experts " + experts + " must be divisible by -n " + ranks);
        if (iters < 1 || llIters < 1) throw new IllegalArgumentException("--iters and --ll-iters must be >= 1");
        for (int t : tokens) if (t < 1) throw new IllegalArgumentException("--tokens entries must be >= 1, got " + t);
        for (int t : llTokens) if (t < 1) throw new IllegalArgumentException("--ll-tokens entries must be >= 1, got " + t);
        boolean normal = mode.contains("normal"), ll = mode.contains("ll");
        if (!normal && !ll) throw new IllegalArgumentException("--mode must name normal and/or ll, got " + mode);
        List<Job> jobs = jobs(normal, ll);
        String loadBefore = LoadAverage.now();
        if (plot.wanted() && jobs.size() < 2)
            throw new IllegalArgumentException("--plot draws bandwidth against size: give several token counts, e.g. --tokens 1024,2048,4096"
                    + " and/or --ll-tokens 32,64,128");
        List<Row> rows = new ArrayList<>();
        for (Job job : jobs) {
            List<Row> r = run(job);
            if (r == null) return 1;
            rows.addAll(r);
        }
        print(rows);
        System.out.println("load average: before " + loadBefore + ", after " + LoadAverage.now());
        if (csv != null) {
            List<String> lines = new ArrayList<>();
            lines.add("op,ranks,bytes_per_rank,us,gb_per_s,bound_us,bound_gb_per_s,ratio,verified,footprint_bytes,tokens_per_rank");
            for (Row r : rows)
                lines.add(String.format(Locale.ROOT, "%s,%d,%.0f,%.1f,%.3f,%.1f,%.3f,%.3f,%s,%d,%d", r.op(), ranks, r.bytes(), r.ns() / 1e3,
                        r.gbps(), r.boundNs() / 1e3, r.boundGbps(), r.ratio(), r.verified(), r.footprint(), r.tokens()));
            Files.write(csv, lines);
            System.out.println("wrote " + csv);
        }
        if (plot.wanted()) plot.write(plot(rows, backend, ranks), "unicomm bench moe (" + backend + ", " + ranks + " ranks, hidden " + hidden + ")");
        return 0;
    }

    /** One job for a single size of each mode (the default run); else one job per token count and mode. */
    List<Job> jobs(boolean normal, boolean ll) {
        if (tokens.size() == 1 && llTokens.size() == 1) return List.of(new Job(tokens.getFirst(), llTokens.getFirst(), normal, ll));
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
            p.add(r.op() + " (" + backend + ", " + ranks + " ranks)", false, Math.round(r.bytes()), r.ns() / 1e3, r.gbps());
            String kind = (r.op().startsWith("normal") ? "normal" : "low-latency") + (r.op().contains("fp8") ? " fp8" : " bf16");
            p.add("bound, " + kind + ": plain copies", true, Math.round(r.bytes()), r.boundNs() / 1e3, r.boundGbps());
        }
        return p;
    }

    /** Runs one job; its rows, or null when it failed (its output has been printed). */
    private List<Row> run(Job job) {
        MoeConfig n = new MoeConfig(MoeConfig.Mode.NORMAL, experts, hidden, job.tokens(), topk, false);
        MoeConfig l = new MoeConfig(MoeConfig.Mode.LOW_LATENCY, experts, hidden, job.llTokens(), topk, hidden % 128 == 0);
        long normalBytes = job.normal() ? n.sizeHint(ranks) + (long) job.tokens() * 2 * hidden + (8L << 20) : 0;
        long llBytes = job.ll() ? l.sizeHint(ranks) + (long) job.llTokens() * 2 * hidden : 0;
        long heap = Math.max(normalBytes, llBytes) + (16L << 20);

        System.err.printf(Locale.ROOT, "bench moe: backend %s, %d ranks; hidden %d, top-%d of %d experts; %s%s%n", backend, ranks, hidden, topk, experts,
                job.normal() ? String.format(Locale.ROOT, "normal: %d tokens/rank (symmetric buffer %s/rank)", job.tokens(), BenchReport.size(n.sizeHint(ranks))) : "",
                job.ll() ? String.format(Locale.ROOT, "%slow-latency: %d tokens/rank (symmetric buffer %s/rank)", job.normal() ? "; " : "",
                        job.llTokens(), BenchReport.size(l.sizeHint(ranks))) : "");
        String modes = (job.normal() ? "normal" : "") + (job.normal() && job.ll() ? "," : "") + (job.ll() ? "ll" : "");
        JobSpec spec = JobSpec.of(ranks, MoeBenchWorker.class.getName(), Integer.toString(experts), Integer.toString(hidden),
                        Integer.toString(job.tokens()), Integer.toString(topk), Integer.toString(job.llTokens()), Integer.toString(iters),
                        Integer.toString(llIters), noVerify ? "0" : "1", Long.toString(seed), modes)
                .withBackend(backend)
                // The portable MoE's reductions run about three times faster on the Vector API.
                .withJvmOptions(List.of("--add-modules", "jdk.incubator.vector"))
                .withEnv(jfr.env(jfrTag(job), Map.of("UNICOMM_HEAP_SIZE", Long.toString(heap))))
                .withCommTimeout(Duration.ofMinutes(2))
                .withJobTimeout(Duration.ofMinutes(10));
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        JobResult result;
        try (Progress progress = Progress.start("bench moe (" + ranks + " ranks, " + job.tag() + ")", job.expectedLines(ranks, hidden));
             PrintStream out = new PrintStream(progress.counting(captured, "MOE,"), true, StandardCharsets.UTF_8);
             PrintStream err = withoutIncubatorNotice(System.err)) {
            result = JobLauncher.run(spec, out, err);
        }
        jfr.report(jfrTag(job), ranks);
        Map<String, List<String[]>> byOp = new LinkedHashMap<>();
        for (String line : captured.toString(StandardCharsets.UTF_8).split("\n")) {
            int at = line.indexOf("MOE,");
            if (at >= 0) {
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
            double bytes = f.stream().mapToLong(a -> Long.parseLong(a[3])).average().orElse(0);
            double ns = f.stream().mapToLong(a -> Long.parseLong(a[4])).average().orElse(0);
            double bound = f.stream().mapToLong(a -> Long.parseLong(a[5])).average().orElse(0);
            String verified = f.stream().allMatch(a -> a[6].equals("ok")) ? "yes" : "skipped";
            int t = e.getKey().startsWith("ll ") ? job.llTokens() : job.tokens();
            rows.add(new Row(e.getKey(), t, bytes, ns, bound, verified, Long.parseLong(f.get(0)[7])));
        }
        return rows;
    }

    /** The single default job keeps the recordings' old names (FILE-n4-rank0.jfr); sweeps add the job. */
    private String jfrTag(Job job) {
        return tokens.size() == 1 && llTokens.size() == 1 ? "n" + ranks : "n" + ranks + "-" + job.tag();
    }

    /** The JVM's one-line notice that an incubator module is in use, printed by every rank, is noise here. */
    private static PrintStream withoutIncubatorNotice(PrintStream target) {
        return new PrintStream(new java.io.OutputStream() {
            private final ByteArrayOutputStream line = new ByteArrayOutputStream();

            @Override public void write(int b) {
                line.write(b);
                if (b == '\n') flushLine();
            }

            private void flushLine() {
                String s = line.toString(StandardCharsets.UTF_8);
                line.reset();
                if (!s.contains("Using incubator modules")) target.print(s);
            }

            @Override public void close() {
                if (line.size() > 0) flushLine();
                target.flush();
            }
        }, true, StandardCharsets.UTF_8);
    }

    private void print(List<Row> rows) {
        System.out.printf(Locale.ROOT, "%nMoE dispatch/combine: backend %s, %d ranks (figures per rank, averaged over ranks; "
                + "bound = the same bytes as plain copies from peer memory by all ranks at once, until the last rank is done; no synchronisation timed; same run)%n", backend, ranks);
        String fmt = "%-18s %7s %12s %11s %9s %11s %9s %7s %9s %11s%n";
        System.out.printf(Locale.ROOT, fmt, "operation", "tokens", "bytes/rank", "time (us)", "GB/s", "bound (us)", "bound GB/s", "ratio", "verified", "buffer");
        for (Row r : rows)
            System.out.printf(Locale.ROOT, fmt, r.op(), r.tokens(), BenchReport.size((long) r.bytes()), String.format(Locale.ROOT, "%.1f", r.ns() / 1e3),
                    String.format(Locale.ROOT, "%.2f", r.gbps()), String.format(Locale.ROOT, "%.1f", r.boundNs() / 1e3),
                    String.format(Locale.ROOT, "%.2f", r.boundGbps()), String.format(Locale.ROOT, "%.2f", r.ratio()), r.verified(),
                    BenchReport.size(r.footprint()));
        Map<Integer, Double> llBf16 = new java.util.TreeMap<>();
        for (Row r : rows)
            if (r.op().equals("ll dispatch bf16") || r.op().equals("ll combine")) llBf16.merge(r.tokens(), r.ns(), Double::sum);
        llBf16.forEach((t, ns) -> System.out.printf(Locale.ROOT, "low-latency dispatch + combine (bf16, %d tokens): %.2f ms%n", t, ns / 1e6));
    }
}
