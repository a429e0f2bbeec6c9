package dev.unicomm.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code unicomm}: the command-line entry point. Subcommands are added by the features that own them. */
@Command(name = "unicomm", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "One Java API for symmetric heaps, RMA, RDMA endpoints, collectives and MoE dispatch/combine.",
        subcommands = {InfoCommand.class, RunCommand.class, ConformanceCommand.class, dev.unicomm.cli.bench.BenchCommand.class})
public final class Main implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override public void run() {
        spec.commandLine().usage(System.out);
    }

    /** Runs the command line and returns its exit code (tests call this instead of {@link #main}). */
    public static int run(String... args) {
        return new CommandLine(new Main()).execute(args);
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** The version from the jar manifest, or "dev" in a build tree. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"unicomm " + (v == null ? "dev" : v) + " (Java " + Runtime.version() + ")"};
        }
    }
}
