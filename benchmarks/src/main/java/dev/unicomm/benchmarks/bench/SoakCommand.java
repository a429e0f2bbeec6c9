package dev.unicomm.benchmarks.bench;

import dev.unicomm.api.ByteSize;
import dev.unicomm.launch.JobLauncher;
import dev.unicomm.launch.JobResult;
import dev.unicomm.launch.JobSpec;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code unicomm bench soak}: mixed RMA (put, get), atomics, allreduce and MoE dispatch/combine on
 * {@code -n} ranks for {@code --duration} or {@code --ops} rounds, every result checked (checksums
 * for RMA, exact values for atomics and INT64 allreduce, the kit's reference for MoE). Prints
 * operations, bytes and mismatches per rank and in total; exits 1 if any mismatch was seen or the
 * job failed.
 */
@Command(
        name = "soak",
        mixinStandardHelpOptions = true,
        description =
                "Soak test: mixed RMA, atomics, collectives and MoE with checksums; reports ops, bytes, mismatches (must be 0).")
public final class SoakCommand implements Callable<Integer> {

    @picocli.CommandLine.Mixin
    JobOptions options = new JobOptions();

    @Option(
            names = "--duration",
            description = "How long to run: 500ms, 30s, 10m, 1h (default: 60s, or no limit when --ops is given).")
    String duration;

    @Option(
            names = "--ops",
            defaultValue = "0",
            description = "Stop after this many operations instead (0: no limit; default: ${DEFAULT-VALUE}).")
    long maxOps;

    @Option(
            names = "--max-block",
            defaultValue = "256K",
            description = "Largest RMA/allreduce block (bytes, K/M; default: ${DEFAULT-VALUE}).")
    String maxBlock;

    @Option(names = "--seed", defaultValue = "1", description = "Data seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(
            names = "--timeout",
            defaultValue = "60s",
            description = "Communicator timeout of every wait (default: ${DEFAULT-VALUE}).")
    String timeout;

    @Option(
            names = "--corrupt-every",
            hidden = true,
            defaultValue = "0",
            description = "Self-check of the checks: rank 0 flips a received byte in every N-th put round.")
    int corruptEvery;

    /** One rank's totals. */
    record Totals(int rank, long ops, long bytes, long mismatches, long millis) {}

    @Override
    public Integer call() {
        if (options.ranks < 1 || options.ranks > 64)
            throw new IllegalArgumentException("-n must be in [1, 64], got " + options.ranks);
        if (corruptEvery < 0) throw new IllegalArgumentException("--corrupt-every must be >= 0, got " + corruptEvery);
        if (maxOps < 0) throw new IllegalArgumentException("--ops must be >= 0, got " + maxOps);
        Duration d =
                duration != null ? parseDuration("--duration", duration) : maxOps > 0 ? null : Duration.ofSeconds(60);
        Duration t = parseDuration("--timeout", timeout);
        long block = ByteSize.parsePositive("--max-block", maxBlock);
        if (block < 8 || block > (64L << 20) || block % 8 != 0)
            throw new IllegalArgumentException("--max-block must be a multiple of 8 in [8, 64M], got " + maxBlock);
        long ops = maxOps == 0 ? Long.MAX_VALUE : maxOps;
        long durationMs = d == null ? Long.MAX_VALUE : d.toMillis();
        long heap = block * (options.ranks + 3) + (64L << 20);
        System.err.printf(
                Locale.ROOT,
                "bench soak: backend %s, %d ranks, %s, blocks up to %s%n",
                options.backend,
                options.ranks,
                (d == null ? "" : "for " + d.toMillis() + " ms")
                        + (ops == Long.MAX_VALUE ? "" : " up to " + ops + " ops"),
                BenchReport.size(block));
        Duration jobTimeout = d == null ? Duration.ofDays(365) : d.plus(t).plusMinutes(2);
        JobSpec spec = options.spec(
                        SoakWorker.class,
                        Long.toString(durationMs),
                        Long.toString(ops),
                        Long.toString(seed),
                        Long.toString(block),
                        Integer.toString(corruptEvery))
                .withEnv(Map.of("UNICOMM_HEAP_SIZE", Long.toString(heap)))
                .withCommTimeout(t)
                .withJobTimeout(jobTimeout);
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        JobResult result;
        // Ranks report only at the end: the bar shows elapsed time (against --duration when there is one).
        try (Progress progress =
                        Progress.timed("bench soak (" + options.ranks + " ranks)", d == null ? 0 : d.toMillis());
                PrintStream out = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
            result = JobLauncher.run(spec, out, System.err);
        }
        List<Totals> totals = new ArrayList<>();
        for (String line : captured.toString(StandardCharsets.UTF_8).split("\n")) {
            int at = line.indexOf("SOAK,");
            if (at >= 0) {
                String[] f = line.substring(at).strip().split(",");
                totals.add(new Totals(
                        Integer.parseInt(f[1]),
                        Long.parseLong(f[2]),
                        Long.parseLong(f[3]),
                        Long.parseLong(f[4]),
                        Long.parseLong(f[5])));
            } else if (!line.isBlank()) {
                System.out.println(line);
            }
        }
        totals.sort((a, b) -> Integer.compare(a.rank(), b.rank()));
        print(totals);
        if (result.exitCode() != 0 || totals.size() != options.ranks) {
            System.out.println("SOAK FAILED: the job "
                    + (result.exitCode() != 0
                            ? "failed (exit code " + result.exitCode() + ", first failed rank " + result.failedRank()
                                    + ")"
                            : "reported " + totals.size() + " of " + options.ranks + " ranks"));
            return 1;
        }
        long bad = totals.stream().mapToLong(Totals::mismatches).sum();
        System.out.println(bad == 0 ? "SOAK PASSED: 0 mismatches" : "SOAK FAILED: " + bad + " mismatches");
        return bad == 0 ? 0 : 1;
    }

    private void print(List<Totals> totals) {
        String fmt = "%-6s %12s %14s %11s %10s%n";
        System.out.printf(
                Locale.ROOT,
                "%nsoak: backend %s, %d ranks; ops are rounds of put, get, atomics, allreduce (INT64) and MoE"
                        + " dispatch+combine in turn, each checked%n",
                options.backend,
                options.ranks);
        System.out.printf(Locale.ROOT, fmt, "rank", "ops", "bytes checked", "mismatches", "ms");
        for (Totals x : totals)
            System.out.printf(Locale.ROOT, fmt, x.rank(), x.ops(), x.bytes(), x.mismatches(), x.millis());
        System.out.printf(
                Locale.ROOT,
                fmt,
                "total",
                totals.stream().mapToLong(Totals::ops).max().orElse(0),
                totals.stream().mapToLong(Totals::bytes).sum(),
                totals.stream().mapToLong(Totals::mismatches).sum(),
                totals.stream().mapToLong(Totals::millis).max().orElse(0));
    }

    static Duration parseDuration(String what, String v) {
        String s = v.trim().toLowerCase(Locale.ROOT);
        try {
            if (s.endsWith("ms"))
                return positive(what, v, Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2))));
            if (s.endsWith("s"))
                return positive(what, v, Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1))));
            if (s.endsWith("m"))
                return positive(what, v, Duration.ofMinutes(Long.parseLong(s.substring(0, s.length() - 1))));
            if (s.endsWith("h"))
                return positive(what, v, Duration.ofHours(Long.parseLong(s.substring(0, s.length() - 1))));
            return positive(what, v, Duration.ofSeconds(Long.parseLong(s)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    what + " must look like 500ms, 30s, 10m, 1h or plain seconds, got '" + v + "'");
        }
    }

    private static Duration positive(String what, String v, Duration d) {
        if (d.isNegative() || d.isZero())
            throw new IllegalArgumentException(what + " must be positive, got '" + v + "'");
        return d;
    }
}
