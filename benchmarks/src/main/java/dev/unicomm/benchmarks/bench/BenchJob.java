package dev.unicomm.benchmarks.bench;

import dev.unicomm.launch.JobLauncher;
import dev.unicomm.launch.JobResult;
import dev.unicomm.launch.JobSpec;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One benchmark job whose ranks print their results as lines that start with a row prefix
 * ({@code BENCH,}, {@code CBENCH,}, ...): the progress bar counts those lines while the job runs;
 * afterwards the other output of the ranks goes to stderr and a failed job becomes an exception.
 */
final class BenchJob {
    private BenchJob() {}

    /**
     * Runs {@code spec} and returns its row lines (from the prefix on, stripped), in the order printed.
     *
     * @param afterJob runs once the job has ended, before its output is sorted (e.g. telling where JFR recordings went)
     * @throws IllegalStateException if the job failed; its output has been printed by then
     */
    static List<String> rows(JobSpec spec, String label, int expectedRows, String prefix, Runnable afterJob) {
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        JobResult result;
        try (Progress progress = Progress.start(label, expectedRows);
                PrintStream out = new PrintStream(progress.counting(captured, prefix), true, StandardCharsets.UTF_8)) {
            result = JobLauncher.run(spec, out, System.err);
        }
        afterJob.run();
        List<String> rows = new ArrayList<>();
        for (String line : captured.toString(StandardCharsets.UTF_8).split("\n")) {
            int at = line.indexOf(prefix);
            if (at >= 0) rows.add(line.substring(at).strip());
            else if (!line.isBlank()) System.err.println(line);
        }
        if (result.exitCode() != 0)
            throw new IllegalStateException("benchmark job of " + spec.ranks() + " ranks failed (exit code "
                    + result.exitCode() + ", first failed rank " + result.failedRank() + "); its output is above");
        return rows;
    }
}
