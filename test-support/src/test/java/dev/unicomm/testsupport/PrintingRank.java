package dev.unicomm.testsupport;

import dev.unicomm.api.CommConfig;

/** What {@link ProcessJobTest} launches: prints to both streams, and rank {@code args[0]} exits with {@code args[1]}. */
public final class PrintingRank {
    private PrintingRank() {}

    public static void main(String[] args) {
        CommConfig c = CommConfig.fromEnvironment();
        System.out.println("out of rank " + c.rank() + " of " + c.worldSize());
        System.err.println("err of rank " + c.rank());
        if (args.length == 2 && Integer.parseInt(args[0]) == c.rank()) System.exit(Integer.parseInt(args[1]));
    }
}
