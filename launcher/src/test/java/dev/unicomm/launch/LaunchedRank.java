package dev.unicomm.launch;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.CommConfig;
import dev.unicomm.internal.rendezvous.Rendezvous;
import dev.unicomm.spi.Store;
import java.nio.charset.StandardCharsets;

/** The program {@link JobLauncherTest} launches as every rank; {@code args[0]} picks a scenario. */
public final class LaunchedRank {
    private LaunchedRank() {}

    /** A short fingerprint: lets the test compare tokens without anyone printing one. */
    static String tokenHash(String token) throws java.security.NoSuchAlgorithmException {
        if (token == null) return "none";
        byte[] d = java.security.MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
        return java.util.HexFormat.of().formatHex(d, 0, 6);
    }

    public static void main(String[] args) throws Exception {
        CommConfig config = CommConfig.fromEnvironment();
        int rank = config.rank(), size = config.worldSize();
        switch (args[0]) {
            case "hello" -> {
                try (Store store = Rendezvous.connect(config)) {
                    store.set("name/" + rank, ("r" + rank).getBytes(StandardCharsets.UTF_8));
                    store.barrier("named");
                    StringBuilder all = new StringBuilder();
                    for (int p = 0; p < size; p++)
                        all.append(new String(store.get("name/" + p), StandardCharsets.UTF_8));
                    System.out.println("rank " + rank + " of " + size + " sees " + all + " tls=" + config.tls()
                            + " token="
                            + (config.token() != null && config.token().length() >= 40) + " backend=" + config.backend()
                            + " tokenhash=" + tokenHash(config.token()));
                    System.err.println("stderr of rank " + rank);
                    store.barrier("done");
                }
            }
            case "fail-store" -> { // args: failing rank, its exit code; the others wait on the store
                int failing = Integer.parseInt(args[1]);
                Store store = Rendezvous.connect(config);
                store.barrier("connected");
                if (rank == failing) {
                    System.out.println("rank " + rank + " fails now");
                    Runtime.getRuntime().halt(Integer.parseInt(args[2])); // no clean close: as if it crashed
                }
                try {
                    store.get("never-set");
                } catch (CommAbortedException e) {
                    System.out.println("rank " + rank + " saw rank " + e.failedRank() + " fail");
                    System.exit(3);
                }
            }
            case "fail-sleep" -> { // args: failing rank, its exit code; the others hang (and own a child process)
                int failing = Integer.parseInt(args[1]);
                if (rank == failing) {
                    Thread.sleep(300);
                    System.exit(Integer.parseInt(args[2]));
                }
                Process child = new ProcessBuilder("sleep", "600").start();
                System.out.println("rank " + rank + " started child " + child.pid());
                Thread.sleep(600_000);
            }
            case "exit-after" -> { // args: failing rank, its code, the others' run time in ms, their code; no store
                if (rank == Integer.parseInt(args[1])) Runtime.getRuntime().halt(Integer.parseInt(args[2]));
                Thread.sleep(Long.parseLong(args[3]));
                System.out.println("rank " + rank + " finished");
                System.exit(Integer.parseInt(args[4]));
            }
            case "stop-self" -> { // args: the rank that SIGSTOPs itself; the others then wait on the store until its
                // timeout
                Store store = Rendezvous.connect(config);
                store.barrier("connected");
                if (rank == Integer.parseInt(args[1]))
                    new ProcessBuilder(
                                    "kill",
                                    "-STOP",
                                    Long.toString(ProcessHandle.current().pid()))
                            .start()
                            .waitFor();
                store.barrier("after-stop");
            }
            case "own-abort" -> throw new CommAbortedException(rank, "it gave up"); // names this rank itself
            case "sleep" -> Thread.sleep(600_000);
            case "connect-sleep" -> { // joins the store (over TLS if the job says so), then outlives any test
                Store store = Rendezvous.connect(config);
                store.barrier("connected");
                System.out.println("rank " + rank + " connected tls=" + config.tls());
                Thread.sleep(600_000);
                store.close();
            }
            default -> throw new IllegalArgumentException("unknown scenario " + args[0]);
        }
    }
}
