package dev.unicomm.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** What the multi-node launcher tests pass to {@code unicomm run}: the JVM that runs it, and one node's options. */
final class MultiNodeArgs {
    private MultiNodeArgs() {}

    /** {@code env VARS... java ... Main run}: this JVM's java and class path, quick to start (on this host or a bed host). */
    static List<String> javaRun(String... environment) {
        List<String> cmd = new ArrayList<>(List.of("env"));
        cmd.addAll(List.of(environment));
        cmd.addAll(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED",
                "-XX:TieredStopAtLevel=1",
                "-XX:-UsePerfData",
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "run"));
        return cmd;
    }

    /** Node {@code rank} of {@code nnodes}, {@code perNode} ranks each, rank 0's stores at {@code addr:port}. */
    static List<String> node(int nnodes, int rank, int perNode, String addr, int port) {
        return List.of(
                "--nnodes", "" + nnodes,
                "--node-rank", "" + rank,
                "--nproc-per-node", "" + perNode,
                "--master-addr", addr,
                "--master-port", "" + port);
    }

    /** {@code parts} in order, as one list. */
    @SafeVarargs
    static List<String> concat(List<String>... parts) {
        List<String> all = new ArrayList<>();
        for (List<String> p : parts) all.addAll(p);
        return all;
    }
}
