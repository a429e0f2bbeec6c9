package dev.unicomm.cli;

import java.io.PrintWriter;
import picocli.CommandLine;

/**
 * How the {@code unicomm} command reports failures: one line on standard error naming the command
 * and what was wrong, and a non-zero exit code (2: bad arguments, 1: the command failed). Stack
 * traces only with {@code --verbose}.
 */
final class CliErrors implements CommandLine.IExecutionExceptionHandler {
    /** Exit code of bad arguments (picocli's usage code). */
    static final int USAGE = CommandLine.ExitCode.USAGE;
    /** Exit code of a command that failed. */
    static final int FAILED = CommandLine.ExitCode.SOFTWARE;

    private final boolean verbose;

    CliErrors(boolean verbose) {
        this.verbose = verbose;
    }

    /** Bad arguments found while parsing, or thrown by a command as a {@link CommandLine.ParameterException}. */
    static int onBadArguments(CommandLine.ParameterException e, String[] args) {
        CommandLine cl = e.getCommandLine();
        String name = cl.getCommandSpec().qualifiedName();
        cl.getErr().println(name + ": " + e.getMessage() + " (see '" + name + " --help')");
        cl.getErr().flush();
        return USAGE;
    }

    @Override
    public int handleExecutionException(Exception e, CommandLine cl, CommandLine.ParseResult parsed) {
        PrintWriter err = cl.getErr();
        String name = cl.getCommandSpec().qualifiedName();
        if (verbose) {
            e.printStackTrace(err);
        } else {
            err.println(name + ": " + oneLine(e) + " (--verbose prints the stack trace)");
        }
        err.flush();
        // Bad values the command itself checks (sizes, counts, durations) are argument errors like the parser's.
        return e instanceof IllegalArgumentException ? USAGE : FAILED;
    }

    /** The message, or the exception's name when it has none. */
    static String oneLine(Throwable e) {
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }
}
