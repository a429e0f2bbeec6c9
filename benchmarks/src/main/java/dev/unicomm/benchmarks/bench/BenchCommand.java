package dev.unicomm.benchmarks.bench;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code unicomm bench}: the parent of the benchmark subcommands. Add a benchmark by writing a
 * subcommand class in this package and listing it in {@code subcommands} below.
 */
@Command(
        name = "bench",
        mixinStandardHelpOptions = true,
        description = "Benchmarks: each prints a table with a same-run reference and the ratio, and can write CSV.",
        subcommands = {
            RmaBenchCommand.class,
            CollectivesBenchCommand.class,
            MoeBenchCommand.class,
            P2pBenchCommand.class,
            SoakCommand.class
        })
public final class BenchCommand implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }
}
