package dev.unicomm.cli;

import dev.unicomm.api.CommConfig;
import dev.unicomm.internal.rendezvous.Rendezvous;
import dev.unicomm.spi.Store;

/** What {@link RunCommandTest} runs as every rank: meet in the store, report, exit with a chosen code. */
public final class RankProgram {
    private RankProgram() {}

    public static void main(String[] args) {
        CommConfig config = CommConfig.fromEnvironment();
        if (args.length == 2
                && args[0].equals("killed")) { // args: killed RANK -> that rank dies, the others hit the abort
            Store store = Rendezvous.connect(config);
            store.barrier("all");
            if (Integer.parseInt(args[1]) == config.rank()) Runtime.getRuntime().halt(137); // as if killed
            store.get("never-set"); // throws CommAbortedException, uncaught
            return;
        }
        if (args.length == 1 && args[0].equals("sleep")) {
            try {
                Thread.sleep(600_000);
            } catch (InterruptedException e) {
                return;
            }
        }
        try (Store store = Rendezvous.connect(config)) {
            long joined = store.add("joined", 1);
            store.barrier("all");
            System.out.println("rank " + config.rank() + "/" + config.worldSize() + " joined as #" + joined
                    + " backend=" + config.backend() + " args=" + String.join(",", args));
        }
        // args: fail RANK CODE -> that rank exits with CODE
        if (args.length == 3 && args[0].equals("fail") && Integer.parseInt(args[1]) == config.rank())
            System.exit(Integer.parseInt(args[2]));
    }
}
