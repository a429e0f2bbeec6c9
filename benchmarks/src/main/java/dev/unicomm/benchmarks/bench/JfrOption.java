package dev.unicomm.benchmarks.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * {@code --jfr FILE} for the bench commands: every rank of every benchmark job records a JDK Flight
 * Recording (unicomm's events + the JDK's default set) to {@code FILE}'s name with
 * {@code -<job>-rank<r>.jfr} in place of {@code .jfr}; a command that measures in its own process
 * ({@code bench p2p}) records that process to {@code FILE} itself. See {@link BenchRecording}.
 */
public final class JfrOption {
    /** The environment variable that tells a worker where to write (a path prefix). */
    static final String ENV = "UNICOMM_BENCH_JFR";

    @Option(
            names = "--jfr",
            paramLabel = "FILE",
            description =
                    "Record JFR in every rank (unicomm's events: lifecycle, RMA batches, barriers, collectives, MoE) "
                            + "to FILE-<job>-rank<r>.jfr (bench p2p, one process: FILE itself, with one event per row); "
                            + "open with `jfr print --events 'dev.unicomm.*' FILE`.")
    Path file;

    /** {@code base} plus, with {@code --jfr}, the variable naming this job's recordings. */
    Map<String, String> env(String jobTag, Map<String, String> base) {
        if (file == null) return base;
        Map<String, String> m = new HashMap<>(base);
        m.put(ENV, prefix(jobTag).toString());
        return m;
    }

    /** After a job: tells the user which recordings it left. */
    void report(String jobTag, int ranks) {
        if (file == null) return;
        for (int r = 0; r < ranks; r++) {
            Path p = Path.of(prefix(jobTag) + "-rank" + r + ".jfr");
            System.err.println(
                    Files.isRegularFile(p)
                            ? "JFR recording: " + p
                            : "JFR recording missing (the rank did not finish): " + p);
        }
    }

    /** With {@code --jfr}: records this process to FILE until closed (commands that start no ranks); else records nothing. */
    BenchRecording recordHere(String name) {
        return file == null
                ? BenchRecording.none()
                : BenchRecording.start(file.toAbsolutePath(), "unicomm bench " + name);
    }

    /** After {@link #recordHere}'s recording was closed: tells the user where it is. */
    void reportHere() {
        if (file == null) return;
        Path p = file.toAbsolutePath();
        System.err.println(Files.isRegularFile(p) ? "JFR recording: " + p : "JFR recording missing: " + p);
    }

    private Path prefix(String jobTag) {
        Path abs = file.toAbsolutePath();
        String name = abs.getFileName().toString();
        if (name.endsWith(".jfr")) name = name.substring(0, name.length() - 4);
        return abs.resolveSibling(name + "-" + jobTag);
    }
}
