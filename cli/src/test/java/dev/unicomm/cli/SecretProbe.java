package dev.unicomm.cli;

import dev.unicomm.api.CommConfig;
import dev.unicomm.api.CommException;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.Unicomm;
import dev.unicomm.internal.checked.CheckedCommunicator;
import dev.unicomm.internal.rendezvous.Rendezvous;
import dev.unicomm.internal.rendezvous.TcpStore;
import dev.unicomm.spi.Store;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A rank for {@link RunSecurityTest}: opens a full communicator (store over TLS when the job says
 * so), meets the others in a barrier, and writes the job's secrets to a file (never to its output),
 * so the test can check that they appear nowhere in what {@code unicomm run} printed.
 */
public final class SecretProbe {
    private SecretProbe() {}

    public static void main(String[] args) throws Exception {
        if (args.length > 1 && args[1].equals("wrong-token")) {
            wrongToken(Path.of(args[0]));
            return;
        }
        try (Communicator c = Unicomm.connect()) {
            c.barrier();
            String store = c instanceof CheckedCommunicator cc ? cc.store().toString() : "?";
            Files.writeString(
                    Path.of(args[0], "rank-" + c.rank()),
                    System.getenv("UNICOMM_TOKEN") + "\n"
                            + System.getenv().getOrDefault("UNICOMM_TLS_PASSWORD", "") + "\n"
                            + System.getenv().getOrDefault("UNICOMM_TLS_KEYSTORE", "") + "\n");
            System.out.println("probe rank " + c.rank() + " store " + store);
        }
    }

    /**
     * Rank 0 hosts; rank 1 knocks with a near-miss of the token, then with none. The first rejection
     * aborts the job (issue 18), so the host keeps its store listening until rank 1 has knocked twice
     * (a marker file in the job's folder) - otherwise the second knock races the store's close.
     */
    private static void wrongToken(Path dir) throws InterruptedException {
        CommConfig config = CommConfig.fromEnvironment().withTimeout(Duration.ofSeconds(4));
        Path knocked = dir.resolve("rank-1-knocked-twice");
        if (config.rank() == 0) {
            try (Store store = Rendezvous.connect(config)) {
                try {
                    store.get("never", Duration.ofSeconds(4));
                } catch (CommTimeoutException expected) {
                    System.out.println("host done");
                } catch (dev.unicomm.api.CommAbortedException expected) {
                    // Not expected since issue 45: a turned-away connection (maybe a stranger's) no longer fails the
                    // host.
                    System.out.println("host saw the rejection: " + expected.getMessage());
                }
                long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
                while (!Files.exists(knocked) && System.nanoTime() < deadline) Thread.sleep(20);
            }
            return;
        }
        String token = config.token();
        String nearMiss = token.substring(0, token.length() - 1) + (token.endsWith("A") ? "B" : "A");
        for (String t : new String[] {nearMiss, null}) {
            try {
                TcpStore.connect(config.storeHost(), config.storePort(), 1, 2, t, null, Duration.ofSeconds(3), null)
                        .close();
                System.out.println("ADMITTED with " + (t == null ? "no token" : "a wrong token"));
            } catch (CommException e) {
                System.out.println("rejected: " + e.getMessage());
            }
        }
        try {
            Files.writeString(knocked, "");
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
