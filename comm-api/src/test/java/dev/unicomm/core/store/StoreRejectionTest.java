package dev.unicomm.core.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.CommException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Issue 18, finding 7: a rank the store turns away fails the job at once, not after rank 0's timeout. */
@Timeout(60)
class StoreRejectionTest {

    @Test void aRankWithAWrongTokenFailsTheWaitingRanksAtOnceNamingIt() throws Exception {
        try (StoreServer s = StoreServer.start(InetAddress.getLoopbackAddress(), 0, 2, "job-token", null, Duration.ofSeconds(5));
             TcpStore rank0 = TcpStore.connect("127.0.0.1", s.port(), 0, 2, "job-token", null, Duration.ofSeconds(60), null)) {
            long start = System.nanoTime();
            CompletableFuture<byte[]> waiting = CompletableFuture.supplyAsync(() -> rank0.get("from-rank-1"));
            CommException rejected = assertThrows(CommException.class,
                    () -> TcpStore.connect("127.0.0.1", s.port(), 1, 2, "another-job", null, Duration.ofSeconds(10), null));
            assertTrue(rejected.getMessage().contains("wrong token"), rejected.getMessage());
            ExecutionException e = assertThrows(ExecutionException.class, () -> waiting.get(20, TimeUnit.SECONDS));
            CommAbortedException aborted = (CommAbortedException) e.getCause();
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(1, aborted.failedRank(), aborted.getMessage());
            assertTrue(aborted.getMessage().contains("rejected") && aborted.getMessage().contains("wrong token"), aborted.getMessage());
            assertTrue(ms < 20_000, "rank 0 learnt of the rejection after " + ms + " ms; its timeout is 60 s");
            System.out.println("[reliability] rejected rank: rank 0 failed after " + ms + " ms: " + aborted.getMessage());
        }
    }

    @Test void aStrangerClaimingAJoinedRankIsTurnedAwayWithoutHurtingTheJob() throws Exception {
        try (StoreServer s = StoreServer.start(InetAddress.getLoopbackAddress(), 0, 2, "job-token", null, Duration.ofSeconds(5));
             TcpStore rank0 = TcpStore.connect("127.0.0.1", s.port(), 0, 2, "job-token", null, Duration.ofSeconds(10), null);
             TcpStore rank1 = TcpStore.connect("127.0.0.1", s.port(), 1, 2, "job-token", null, Duration.ofSeconds(10), null)) {
            for (int r = 0; r < 2; r++) {
                int claimed = r;
                assertThrows(CommException.class,
                        () -> TcpStore.connect("127.0.0.1", s.port(), claimed, 2, "guess", null, Duration.ofSeconds(5), null));
            }
            rank0.set("still", new byte[] {7});
            assertEquals(7, rank1.get("still")[0]);
            rank0.checkHealthy();
        }
    }

    @Test void warningsAboutPeersAreRateLimited() {
        AtomicInteger lines = new AtomicInteger();
        System.Logger counting = new System.Logger() {
            @Override public String getName() { return "count"; }
            @Override public boolean isLoggable(Level level) { return true; }
            @Override public void log(Level level, java.util.ResourceBundle b, String msg, Throwable t) { lines.incrementAndGet(); }
            @Override public void log(Level level, java.util.ResourceBundle b, String format, Object... params) { lines.incrementAndGet(); }
        };
        RateLimitedLog log = new RateLimitedLog(counting, 5, 1, TimeUnit.HOURS);
        for (int i = 0; i < 1000; i++) log.warn("rejected a connection " + i);
        assertEquals(5, lines.get());
        assertEquals(995, log.suppressed());
    }
}
