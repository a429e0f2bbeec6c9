package dev.unicomm.testsupport;

import dev.unicomm.launch.JobLauncher;
import dev.unicomm.launch.JobResult;
import dev.unicomm.launch.JobSpec;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

/**
 * Runs the ranks of a job as processes through {@link JobLauncher} (as {@code unicomm run} does) and
 * keeps what they printed: each rank's lines carry the launcher's {@code [rank]} prefix.
 */
public final class ProcessJob {
    private ProcessJob() {}

    /**
     * A finished job.
     *
     * @param result how it ended (exit codes by rank)
     * @param out    what the ranks and the launcher printed to stdout
     * @param err    what they printed to stderr
     */
    public record Finished(JobResult result, String out, String err) {
        /** The job's exit code. */
        public int exitCode() {
            return result.exitCode();
        }

        /** Every rank's exit code, by rank. */
        public List<Integer> rankExitCodes() {
            return result.rankExitCodes();
        }

        /** stdout then stderr: what to show when an assertion on the job fails. */
        public String log() {
            return out + err;
        }

        /** What rank {@code rank} printed to stdout (to both streams after {@link #runMerged}), without the {@code [rank] } prefix. */
        public String rankOutput(int rank) {
            if (rank < 0 || rank >= result.rankExitCodes().size())
                throw new IllegalArgumentException(
                        "rank must be in [0, " + result.rankExitCodes().size() + "), got " + rank);
            String prefix = "[" + rank + "] ";
            StringBuilder b = new StringBuilder();
            out.lines().filter(l -> l.startsWith(prefix)).forEach(l -> b.append(l, prefix.length(), l.length())
                    .append('\n'));
            return b.toString();
        }

        /** Each rank's exit code and output ({@link #rankOutput}), by rank. */
        public List<RankOutput> ranks() {
            return java.util.stream.IntStream.range(0, result.rankExitCodes().size())
                    .mapToObj(r -> new RankOutput(result.rankExitCodes().get(r), rankOutput(r)))
                    .toList();
        }
    }

    /**
     * One rank of a finished job.
     *
     * @param exitCode its exit code
     * @param output   what it printed, without the rank prefix
     */
    public record RankOutput(int exitCode, String output) {}

    /** Launches {@code spec}, waits for it to end, and returns its result and its two streams. */
    public static Finished run(JobSpec spec) {
        Objects.requireNonNull(spec, "spec");
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        JobResult result;
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            result = JobLauncher.run(spec, o, e);
        }
        return new Finished(result, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** As {@link #run}, with stderr interleaved into stdout in the order the lines arrived ({@link Finished#err()} is empty). */
    public static Finished runMerged(JobSpec spec) {
        Objects.requireNonNull(spec, "spec");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        JobResult result;
        try (PrintStream sink = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            result = JobLauncher.run(spec, sink, sink);
        }
        return new Finished(result, out.toString(StandardCharsets.UTF_8), "");
    }
}
