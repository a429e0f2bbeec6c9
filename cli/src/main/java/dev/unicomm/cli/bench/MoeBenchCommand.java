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
 * plain copies, plus one barrier), and verifies the first results of every operation against
 * the kit's reference. Each operation is warmed up, then timed {@code --iters} (normal) or
 * {@code --ll-iters} (low-latency) times interleaved with its bound; the median is reported. The
 * defaults (5 and 10) keep the default run, DeepEP's full shapes on 4 ranks, near a minute on
 * a 2-core machine; raise them for steadier figures.
 */
@Command(name = "moe", mixinStandardHelpOptions = true,
        description = "MoE dispatch/combine benchmark with DeepEP's shapes; bandwidth vs a same-run copy bound; verified against the reference.")
public final class MoeBenchCommand implements Callable<Integer> {

    @Option(names = "--backend", defaultValue = "shm", description = "Backend (default: ${DEFAULT-VALUE}).")
    String backend;

    @Option(names = "-n", defaultValue = "4", description = "Ranks (default: ${DEFAULT-VALUE}).")
    int ranks;

    @Option(names = "--tokens", defaultValue = "4096", description = "Tokens per rank, normal mode (default: ${DEFAULT-VALUE}).")
    int tokens;

    @Option(names = "--hidden", defaultValue = "7168", description = "Hidden size (default: ${DEFAULT-VALUE}).")
    int hidden;

    @Option(names = "--topk", defaultValue = "8", description = "Experts per token (default: ${DEFAULT-VALUE}).")
    int topk;

    @Option(names = "--experts", defaultValue = "256", description = "Experts in the job (default: ${DEFAULT-VALUE}).")
    int experts;

    @Option(names = "--ll-tokens", defaultValue = "128", description = "Tokens per rank, low-latency mode (default: ${DEFAULT-VALUE}).")
    int llTokens;

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

    /** One operation's figures, averaged over ranks. */
    record Row(String op, double bytes, double ns, double boundNs, String verified, long footprint) {
        double gbps() { return bytes / ns; }
        double boundGbps() { return bytes / boundNs; }
        double ratio() { return boundNs / ns; }
    }

    @picocli.CommandLine.Mixin
    JfrOption jfr = new JfrOption();

    @Override public Integer call() throws IOException {
        if (ranks < 1) throw new IllegalArgumentException("-n must be >= 1, got " + ranks);
        if (experts % ranks != 0) throw new IllegalArgumentException("--experts " + experts + " must be divisible by -n " + ranks);
        if (iters < 1 || llIters < 1) throw new IllegalArgumentException("--iters and --ll-iters must be >= 1");
        boolean normal = mode.contains("normal"), ll = mode.contains("ll");
        if (!normal && !ll) throw new IllegalArgumentException("--mode must name normal and/or ll, got " + mode);
        MoeConfig n = new MoeConfig(MoeConfig.Mode.NORMAL, experts, hidden, tokens, topk, false);
        MoeConfig l = new MoeConfig(MoeConfig.Mode.LOW_LATENCY, experts, hidden, llTokens, topk, hidden % 128 == 0);
        long normalBytes = normal ? n.sizeHint(ranks) + (long) tokens * 2 * hidden + (8L << 20) : 0;
        long llBytes = ll ? l.sizeHint(ranks) + (long) llTokens * 2 * hidden : 0;
        long heap = Math.max(normalBytes, llBytes) + (16L << 20);

        System.err.printf(Locale.ROOT, "bench moe: backend %s, %d ranks; normal: %d tokens/rank, hidden %d, top-%d of %d experts"
                + " (symmetric buffer %s/rank); low-latency: %d tokens/rank (symmetric buffer %s/rank)%n", backend, ranks, tokens, hidden, topk, experts,
                normal ? BenchReport.size(n.sizeHint(ranks)) : "-", llTokens, ll ? BenchReport.size(l.sizeHint(ranks)) : "-");
        JobSpec spec = JobSpec.of(ranks, MoeBenchWorker.class.getName(), Integer.toString(experts), Integer.toString(hidden),
                        Integer.toString(tokens), Integer.toString(topk), Integer.toString(llTokens), Integer.toString(iters),
                        Integer.toString(llIters), noVerify ? "0" : "1", Long.toString(seed), mode)
                .withBackend(backend)
                // The portable MoE's reductions run about three times faster on the Vector API.
                .withJvmOptions(List.of("--add-modules", "jdk.incubator.vector"))
                .withEnv(jfr.env("n" + ranks, Map.of("UNICOMM_HEAP_SIZE", Long.toString(heap))))
                .withCommTimeout(Duration.ofMinutes(2))
                .withJobTimeout(Duration.ofMinutes(10));
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        JobResult result;
        try (Progress progress = Progress.start("bench moe (" + ranks + " ranks)", 0);
             PrintStream out = new PrintStream(progress.counting(captured, "MOE,"), true, StandardCharsets.UTF_8);
             PrintStream err = withoutIncubatorNotice(System.err)) {
            result = JobLauncher.run(spec, out, err);
        }
        jfr.report("n" + ranks, ranks);
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
            return 1;
        }
        List<Row> rows = new ArrayList<>();
        for (var e : byOp.entrySet()) {
            List<String[]> f = e.getValue();
            double bytes = f.stream().mapToLong(a -> Long.parseLong(a[3])).average().orElse(0);
            double ns = f.stream().mapToLong(a -> Long.parseLong(a[4])).average().orElse(0);
            double bound = f.stream().mapToLong(a -> Long.parseLong(a[5])).average().orElse(0);
            String verified = f.stream().allMatch(a -> a[6].equals("ok")) ? "yes" : "skipped";
            rows.add(new Row(e.getKey(), bytes, ns, bound, verified, Long.parseLong(f.get(0)[7])));
        }
        print(rows);
        if (csv != null) {
            List<String> lines = new ArrayList<>();
            lines.add("op,ranks,bytes_per_rank,us,gb_per_s,bound_us,bound_gb_per_s,ratio,verified,footprint_bytes");
            for (Row r : rows)
                lines.add(String.format(Locale.ROOT, "%s,%d,%.0f,%.1f,%.3f,%.1f,%.3f,%.3f,%s,%d", r.op(), ranks, r.bytes(), r.ns() / 1e3,
                        r.gbps(), r.boundNs() / 1e3, r.boundGbps(), r.ratio(), r.verified(), r.footprint()));
            Files.write(csv, lines);
            System.out.println("wrote " + csv);
        }
        return 0;
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
                + "bound = the same bytes as plain copies from peer memory + one barrier, same run)%n", backend, ranks);
        String fmt = "%-18s %12s %11s %9s %11s %9s %7s %9s %11s%n";
        System.out.printf(Locale.ROOT, fmt, "operation", "bytes/rank", "time (us)", "GB/s", "bound (us)", "bound GB/s", "ratio", "verified", "buffer");
        for (Row r : rows)
            System.out.printf(Locale.ROOT, fmt, r.op(), BenchReport.size((long) r.bytes()), String.format(Locale.ROOT, "%.1f", r.ns() / 1e3),
                    String.format(Locale.ROOT, "%.2f", r.gbps()), String.format(Locale.ROOT, "%.1f", r.boundNs() / 1e3),
                    String.format(Locale.ROOT, "%.2f", r.boundGbps()), String.format(Locale.ROOT, "%.2f", r.ratio()), r.verified(),
                    BenchReport.size(r.footprint()));
        double llBf16 = rows.stream().filter(r -> r.op().equals("ll dispatch bf16") || r.op().equals("ll combine")).mapToDouble(Row::ns).sum();
        if (llBf16 > 0) System.out.printf(Locale.ROOT, "low-latency dispatch + combine (bf16, %d tokens): %.2f ms%n", llTokens, llBf16 / 1e6);
    }
}
