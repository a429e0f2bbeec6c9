package dev.unicomm.benchmarks.bench;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
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

    /** A run's exit code and what it printed on standard output and standard error. */
    record Run(int code, String out, String err) {}

    /**
     * Runs {@code commandLine} (words separated by single spaces, as a user types them: no word may hold a space)
     * and captures what it prints on standard output and standard error.
     */
    static Run capture(String commandLine) {
        PrintStream oldOut = System.out, oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        System.setOut(new PrintStream(out, true));
        System.setErr(new PrintStream(err, true));
        try {
            int code = run(commandLine.split(" "));
            return new Run(code, out.toString(), err.toString());
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }
}
