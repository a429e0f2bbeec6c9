package dev.unicomm.internal.rendezvous;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommConfig;
import dev.unicomm.spi.Store;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(600)
class RendezvousTest {
    /** A thread per rank: ranks block on each other, so a bounded pool could starve them. */
    static final java.util.concurrent.Executor THREADS = Thread::startVirtualThread;

    static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    static CommConfig rank(int rank, int size, int port, String token) {
        return CommConfig.fromEnvironment(
                Map.of(
                        "UNICOMM_RANK",
                        "" + rank,
                        "UNICOMM_WORLD_SIZE",
                        "" + size,
                        "UNICOMM_STORE",
                        "127.0.0.1:" + port,
                        "UNICOMM_TOKEN",
                        token,
                        "UNICOMM_TIMEOUT",
                        "5s"),
                new Properties());
    }

    @Test
    void singleRankGetsALocalStore() {
        try (Store s = Rendezvous.connect(CommConfig.single(null))) {
            assertInstanceOf(LocalStore.class, s);
        }
    }

    @Test
    void threeRanksMeetThroughRankZerosStore() throws Exception {
        int port = freePort();
        List<CompletableFuture<Long>> ranks = new ArrayList<>();
        // Rank 2 and 1 start first: they retry until rank 0 serves.
        for (int r = 2; r >= 0; r--) {
            CommConfig c = rank(r, 3, port, "job-token");
            ranks.add(CompletableFuture.supplyAsync(
                    () -> {
                        try (Store s = Rendezvous.connect(c)) {
                            assertInstanceOf(TcpStore.class, s);
                            s.set("hello/" + c.rank(), new byte[] {(byte) c.rank()});
                            s.barrier("all-here");
                            for (int p = 0; p < 3; p++) assertArrayEquals(new byte[] {(byte) p}, s.get("hello/" + p));
                            return s.add("sum", c.rank() + 1);
                        }
                    },
                    THREADS));
        }
        long max = 0;
        for (CompletableFuture<Long> f : ranks) max = Math.max(max, f.get(20, TimeUnit.SECONDS));
        assertEquals(6, max);
    }

    @Test
    void multiRankJobsNeedAFixedPort() {
        CommConfig c =
                new CommConfig(null, 1, 2, 1, "127.0.0.1", 0, null, false, Duration.ofSeconds(1), 1 << 20, Map.of());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Rendezvous.connect(c));
        assertTrue(e.getMessage().contains("port 0"), e.getMessage());
    }

    @Test
    void tlsWithoutAKeystoreIsExplained() throws Exception {
        CommConfig c = new CommConfig(
                null, 1, 2, 1, "127.0.0.1", freePort(), "tok", true, Duration.ofSeconds(1), 1 << 20, Map.of());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Rendezvous.connect(c));
        assertTrue(e.getMessage().contains("UNICOMM_TLS_KEYSTORE"), e.getMessage());
    }

    /** Issue 18, finding 7: without a token the store would admit anyone on the host, so it needs an explicit opt-in. */
    @Test
    void multiRankJobsWithoutATokenNeedAnExplicitOptIn() throws Exception {
        for (int r = 0; r < 2; r++) {
            CommConfig c = new CommConfig(
                    null, r, 2, r, "127.0.0.1", freePort(), null, false, Duration.ofSeconds(5), 1 << 20, Map.of());
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Rendezvous.connect(c));
            assertTrue(
                    e.getMessage().contains("UNICOMM_TOKEN") && e.getMessage().contains("UNICOMM_ALLOW_NO_TOKEN"),
                    e.getMessage());
        }
        int port = freePort();
        List<CompletableFuture<Long>> ranks = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            CommConfig c = new CommConfig(
                    null,
                    r,
                    2,
                    r,
                    "127.0.0.1",
                    port,
                    null,
                    false,
                    Duration.ofSeconds(20),
                    1 << 20,
                    Map.of("unicomm.allow.no.token", "true"));
            ranks.add(CompletableFuture.supplyAsync(
                    () -> {
                        try (Store s = Rendezvous.connect(c)) {
                            s.barrier("opted-in");
                            return s.add("n", 1);
                        }
                    },
                    THREADS));
        }
        long max = 0;
        for (CompletableFuture<Long> f : ranks) max = Math.max(max, f.get(30, TimeUnit.SECONDS));
        assertEquals(2, max);
    }
}
