package dev.unicomm.internal.rendezvous;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.CommConfig;
import dev.unicomm.api.RankFailedException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Issue 45, item 4: the store's failure messages blame the failed rank and say each prefix once. */
@Timeout(120)
class FailureMessagesTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private static int occurrences(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) n++;
        return n;
    }

    @Test
    void aRankReportingAnothersFailureBlamesThatRankNotItself() throws Exception {
        try (StoreServer s = StoreServer.start(InetAddress.getLoopbackAddress(), 0, 3, null, null, TIMEOUT);
                TcpStore r0 = TcpStore.connect("127.0.0.1", s.port(), 0, 3, null, null, TIMEOUT, null);
                TcpStore r1 = TcpStore.connect("127.0.0.1", s.port(), 1, 3, null, null, TIMEOUT, null)) {
            CompletableFuture<byte[]> waiting = CompletableFuture.supplyAsync(() -> r1.get("never"));
            // As the shm watchdog of rank 0 words it when rank 2 stops answering.
            r0.abort("rank 2 failed or hung (reported by rank 0): no heartbeat for 5 s");
            ExecutionException e = assertThrows(ExecutionException.class, () -> waiting.get(20, TimeUnit.SECONDS));
            CommAbortedException a = (CommAbortedException) e.getCause();
            assertEquals(2, a.failedRank(), a.getMessage());
            assertTrue(
                    a.getMessage().startsWith("rank 2 failed or hung (reported by rank 0): no heartbeat"),
                    a.getMessage());
            assertFalse(a.getMessage().contains("rank 0 failed"), a.getMessage());
        }
    }

    @Test
    void anAbortWithoutABlameNamesTheReporterWithoutRepeatingIt() throws Exception {
        try (StoreServer s = StoreServer.start(InetAddress.getLoopbackAddress(), 0, 2, null, null, TIMEOUT);
                TcpStore r0 = TcpStore.connect("127.0.0.1", s.port(), 0, 2, null, null, TIMEOUT, null);
                TcpStore r1 = TcpStore.connect("127.0.0.1", s.port(), 1, 2, null, null, TIMEOUT, null)) {
            r1.abort("rank 1 failed: out of memory");
            CommAbortedException a = assertThrows(CommAbortedException.class, () -> r0.get("never"));
            assertEquals(1, a.failedRank());
            assertEquals("rank 1 failed: out of memory", a.getMessage());
        }
    }

    @Test
    void aDeadRankInElasticModeIsNamedOnce() throws Exception {
        try (StoreServer s = StoreServer.start(InetAddress.getLoopbackAddress(), 0, 3, null, null, TIMEOUT, true);
                TcpStore r0 = TcpStore.connect("127.0.0.1", s.port(), 0, 3, null, null, TIMEOUT, null)) {
            ElasticStore v0 = ElasticStore.atConnect(r0, TIMEOUT);
            try (RawClient dying = new RawClient(s.port())) {
                assertEquals(StoreWire.OK, dying.hello(2, 3, null));
            }
            RankFailedException direct = assertThrows(RankFailedException.class, () -> r0.get("e0/never", TIMEOUT));
            RankFailedException viewed = assertThrows(RankFailedException.class, () -> v0.get("never"));
            for (RankFailedException f : new RankFailedException[] {direct, viewed}) {
                assertEquals(2, f.failedRank(), f.getMessage());
                assertEquals(1, occurrences(f.getMessage(), "rank 2 failed"), f.getMessage());
                assertEquals(0, occurrences(f.getMessage(), "failed: rank"), f.getMessage());
            }
        }
    }

    @Test
    void anUnresolvableStoreHostIsOneMessageWithoutARepeatingCause() {
        CommConfig c = new CommConfig(
                null,
                0,
                2,
                0,
                "no-such-host.invalid",
                29999,
                "t",
                false,
                TIMEOUT,
                CommConfig.DEFAULT_HEAP_SIZE,
                Map.of());
        var e = assertThrows(IllegalArgumentException.class, () -> Rendezvous.connect(c));
        assertTrue(
                e.getMessage().contains("no-such-host.invalid")
                        && e.getMessage().contains("MASTER_ADDR"),
                e.getMessage());
        assertNull(e.getCause());
        assertEquals(0, e.getStackTrace().length, "a launch mistake prints as one line");
    }

    @Test
    void aMultiRankJobWithoutATokenIsOneLine() {
        CommConfig c = new CommConfig(
                null, 1, 2, 1, "127.0.0.1", 29999, null, false, TIMEOUT, CommConfig.DEFAULT_HEAP_SIZE, Map.of());
        var e = assertThrows(IllegalArgumentException.class, () -> Rendezvous.connect(c));
        assertTrue(e.getMessage().contains("UNICOMM_TOKEN"), e.getMessage());
        assertEquals(0, e.getStackTrace().length, "a launch mistake prints as one line");
    }
}
