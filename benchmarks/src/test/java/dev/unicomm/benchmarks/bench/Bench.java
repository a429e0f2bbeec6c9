package dev.unicomm.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.unicomm.testsupport.ConsoleCapture;
import java.util.Arrays;
import picocli.CommandLine;

/**
 * Runs {@code unicomm bench ...} without the cli module (which depends on this one): the same
 * subcommands under picocli's default error handling (message or stack trace on stderr, exit code != 0).
 * The cli's own error printing is tested in the cli module.
 */
final class Bench {
    private Bench() {}

    /** {@code args} as a user types them after {@code unicomm}: the first must be {@code bench}. */
    static int run(String... args) {
        if (args.length == 0 || !args[0].equals("bench"))
            throw new IllegalArgumentException("args must start with 'bench'");
        return new CommandLine(new BenchCommand()).execute(Arrays.copyOfRange(args, 1, args.length));
    }

    /**
     * Runs {@code commandLine} (words separated by single spaces, as a user types them: no word may hold a space)
     * with standard output and standard error captured.
     */
    static ConsoleCapture.Captured capture(String commandLine) {
        return ConsoleCapture.run(() -> run(commandLine.split(" ")));
    }

    /** Runs {@code commandLine} as {@link #capture} does and asserts it exits 0 (failing with both streams); returns its stdout. */
    static String succeeds(String commandLine) {
        ConsoleCapture.Captured run = capture(commandLine);
        assertEquals(0, run.code(), run.log());
        return run.out();
    }
}
