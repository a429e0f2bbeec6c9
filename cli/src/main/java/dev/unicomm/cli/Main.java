package dev.unicomm.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** {@code unicomm}: the command-line entry point. Subcommands are added by the features that own them. */
@Command(
        name = "unicomm",
        mixinStandardHelpOptions = true,
        versionProvider = Main.Version.class,
        description = "One Java API for symmetric heaps, RMA, RDMA endpoints, collectives and MoE dispatch/combine.",
        subcommands = {
            InfoCommand.class,
            RunCommand.class,
            ConformanceCommand.class,
            dev.unicomm.benchmarks.bench.BenchCommand.class
        })
public final class Main implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Read before parsing ({@link #wantsVerbose}); declared so that every subcommand accepts it. */
    @Option(
            names = "--verbose",
            scope = ScopeType.INHERIT,
            description = "On an error, print its stack trace (and the ranks' stack traces) instead of one line.")
    boolean verbose;

    @Override
    public void run() {
        spec.commandLine().usage(System.out);
    }

    /** Runs the command line and returns its exit code (tests call this instead of {@link #main}). */
    public static int run(String... args) {
        boolean verbose = wantsVerbose(args);
        String before = System.getProperty("unicomm.verbose");
        // The launcher passes it on to the ranks (UNICOMM_VERBOSE), so their stack traces are kept too.
        if (verbose) System.setProperty("unicomm.verbose", "true");
        try {
            CommandLine cl = new CommandLine(new Main());
            cl.setParameterExceptionHandler(CliErrors::onBadArguments);
            cl.setExecutionExceptionHandler(new CliErrors(verbose));
            return cl.execute(args);
        } finally {
            if (before == null) System.clearProperty("unicomm.verbose");
            else System.setProperty("unicomm.verbose", before);
        }
    }

    /** {@code --verbose} anywhere before a {@code --} (after it, arguments belong to the user's program). */
    static boolean wantsVerbose(String... args) {
        for (String a : args) {
            if (a.equals("--")) return false;
            if (a.equals("--verbose")) return true;
        }
        return false;
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** The version from the jar manifest, or "dev" in a build tree. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"unicomm " + (v == null ? "dev" : v) + " (Java " + Runtime.version() + ")"};
        }
    }
}
