package dev.unicomm.testsupport;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Runs code that prints to {@link System#out} and {@link System#err} (a command's {@code main}) and
 * keeps both, restoring the real streams afterwards. Not for concurrent tests: the streams are global.
 */
public final class ConsoleCapture {
    private ConsoleCapture() {}

    /** Code that returns an exit code. */
    public interface Command {
        int run();
    }

    /**
     * What a command returned and printed.
     *
     * @param code its exit code
     * @param out  what it printed to stdout
     * @param err  what it printed to stderr
     */
    public record Captured(int code, String out, String err) {
        /** stdout then stderr: what to show when an assertion fails. */
        public String log() {
            return out + err;
        }
    }

    /** Runs {@code command} with stdout and stderr captured; an exception it throws propagates (streams restored). */
    public static Captured run(Command command) {
        Objects.requireNonNull(command, "command");
        PrintStream oldOut = System.out, oldErr = System.err;
        ByteArrayOutputStream out = new ByteArrayOutputStream(), err = new ByteArrayOutputStream();
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            System.setOut(o);
            System.setErr(e);
            int code = command.run();
            return new Captured(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(oldOut);
            System.setErr(oldErr);
        }
    }
}
