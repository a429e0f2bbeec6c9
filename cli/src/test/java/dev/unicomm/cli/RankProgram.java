package dev.unicomm.cli;

import dev.unicomm.api.CommConfig;
import dev.unicomm.core.Rendezvous;
import dev.unicomm.spi.Store;

/** What {@link RunCommandTest} runs as every rank: meet in the store, report, exit with a chosen code. */
public final class RankProgram {
    private RankProgram() {}

    public static void main(String[] args) {
        CommConfig config = CommConfig.fromEnvironment();
        try (Store store = Rendezvous.connect(config)) {
            long joined = store.add("joined", 1);
            store.barrier("all");
            System.out.println("rank " + config.rank() + "/" + config.worldSize() + " joined as #" + joined
                    + " backend=" + config.backend() + " args=" + String.join(",", args));
        }
        // args: fail RANK CODE -> that rank exits with CODE
        if (args.length == 3 && args[0].equals("fail") && Integer.parseInt(args[1]) == config.rank()) System.exit(Integer.parseInt(args[2]));
    }
}
