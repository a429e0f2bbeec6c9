package dev.unicomm.cli;

import dev.unicomm.testsupport.ConsoleCapture;

/** Runs the command line in this JVM ({@link Main#run}) and keeps what it printed, for the command tests. */
final class CliRunner {
    private CliRunner() {}

    /** {@code unicomm args...}: its exit code, stdout and stderr. */
    static ConsoleCapture.Captured run(String... args) {
        return ConsoleCapture.run(() -> Main.run(args));
    }

    /** {@code unicomm} with {@code commandLine}'s words (separated by single spaces; no word may hold one), as {@link #run}. */
    static ConsoleCapture.Captured line(String commandLine) {
        return run(commandLine.split(" "));
    }
}
