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
        public int exitCode() { return result.exitCode(); }

        /** Every rank's exit code, by rank. */
        public List<Integer> rankExitCodes() { return result.rankExitCodes(); }

        /** stdout then stderr: what to show when an assertion on the job fails. */
        public String log() { return out + err; }
    }

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
