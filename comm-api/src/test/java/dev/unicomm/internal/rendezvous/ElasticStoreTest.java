package dev.unicomm.internal.rendezvous;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.RankFailedException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The store in elastic mode: a rank whose connection drops is recorded as failed, waiters and later
 * requests of the old generation are answered "rank failed" (never ABORTED), the survivors agree on
 * the live ranks and go on in a new generation; an explicit abort still fails the whole job.
 */
@Timeout(120)
class ElasticStoreTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private final List<AutoCloseable> cleanup = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = cleanup.size() - 1; i >= 0; i--) cleanup.get(i).close();
    }

    private StoreServer server(int size, boolean elastic) {
        StoreServer s = StoreServer.start(
                InetAddress.getLoopbackAddress(), 0, size, null, null, Duration.ofSeconds(2), elastic);
        cleanup.add(s);
        return s;
    }

    private TcpStore client(StoreServer s, int rank, int size) {
        TcpStore c = TcpStore.connect("127.0.0.1", s.port(), rank, size, null, null, TIMEOUT, null);
        cleanup.add(c);
        return c;
    }

    /** Rank 2 joins by hand and drops its connection without a goodbye, as a killed process does. */
    private static void joinAndDie(StoreServer s, int rank, int size) throws Exception {
        try (RawClient dying = new RawClient(s.port())) {
            assertEquals(StoreWire.OK, dying.hello(rank, size, null));
        }
    }

    @Test
    void aDeadRankFailsTheOldGenerationAndTheSurvivorsGoOnInANewOne() throws Exception {
        StoreServer s = server(3, true);
        ElasticStore v0 = ElasticStore.atConnect(client(s, 0, 3), TIMEOUT);
        ElasticStore v1 = ElasticStore.atConnect(client(s, 1, 3), TIMEOUT);
        v0.set("before", "x".getBytes(StandardCharsets.UTF_8));
        CompletableFuture<byte[]> waiting =
                CompletableFuture.supplyAsync(() -> v1.get("never-set"), Thread::startVirtualThread);
        Thread.sleep(200); // let the wait reach the host
        joinAndDie(s, 2, 3);

        Throwable woken = assertThrows(Exception.class, () -> waiting.get()).getCause();
        RankFailedException e = assertInstanceOf(RankFailedException.class, woken, String.valueOf(woken));
        assertArrayEquals(new int[] {2}, e.failedRanks());
        assertTrue(e.getMessage().contains("rank 2 failed"), e.getMessage());
        // Later calls of the old generation fail too, without waiting; the push makes checkHealthy see it.
        assertArrayEquals(
                new int[] {2},
                assertThrows(RankFailedException.class, () -> v0.get("before")).failedRanks());
        assertThrows(RankFailedException.class, () -> v0.set("later", new byte[1]));
        long deadline = System.nanoTime() + TIMEOUT.toNanos();
        while (true) {
            try {
                v0.checkHealthy();
                assertTrue(System.nanoTime() < deadline, "checkHealthy never reported the death");
                Thread.sleep(10);
            } catch (RankFailedException seen) {
                break;
            }
        }

        CompletableFuture<ElasticStore> a =
                CompletableFuture.supplyAsync(() -> v0.agreeOnSurvivors(0), Thread::startVirtualThread);
        CompletableFuture<ElasticStore> b =
                CompletableFuture.supplyAsync(() -> v1.agreeOnSurvivors(1), Thread::startVirtualThread);
        ElasticStore n0 = a.get(), n1 = b.get();
        assertArrayEquals(new int[] {0, 1}, n0.jobRanks());
        assertArrayEquals(new int[] {0, 1}, n1.jobRanks());
        assertEquals(1, n0.epoch());
        // The new generation works, its barrier counts the two survivors, and it is healthy.
        n0.set("k", "v".getBytes(StandardCharsets.UTF_8));
        assertEquals("v", new String(n1.get("k"), StandardCharsets.UTF_8));
        assertFalse(n1.contains("before"), "generations do not share keys");
        CompletableFuture<Void> bar = CompletableFuture.runAsync(() -> n0.barrier("after"), Thread::startVirtualThread);
        n1.barrier("after");
        bar.get();
        n0.checkHealthy();
        // Closing the old views keeps the connection (the new views own it); closing the new ones leaves the job
        // cleanly.
        v0.close();
        v1.close();
        n1.close();
        n0.close();
        assertTrue(s.awaitAllLeft(TIMEOUT), "the dead rank counts as gone once the survivors have left");
    }

    @Test
    void withoutElasticTheSameDeathAbortsTheJob() throws Exception {
        StoreServer s = server(2, false);
        TcpStore c = client(s, 0, 2);
        joinAndDie(s, 1, 2);
        CommAbortedException e = assertThrows(CommAbortedException.class, () -> c.get("never-set"));
        assertFalse(e instanceof RankFailedException, "non-elastic jobs abort: " + e);
        assertEquals(1, e.failedRank());
    }

    @Test
    void anExplicitAbortStillFailsAnElasticJob() throws Exception {
        StoreServer s = server(2, true);
        TcpStore a = client(s, 0, 2);
        ElasticStore v = ElasticStore.atConnect(client(s, 1, 2), TIMEOUT);
        a.abort("on purpose");
        CommAbortedException e = assertThrows(CommAbortedException.class, () -> v.get("never-set"));
        assertFalse(e instanceof RankFailedException, "an abort is not survivable: " + e);
        assertEquals(0, e.failedRank());
    }

    @Test
    void shrinkWithoutAFailureSaysSo() {
        StoreServer s = server(2, true);
        ElasticStore v = ElasticStore.atConnect(client(s, 0, 2), Duration.ofMillis(300));
        assertTrue(assertThrows(IllegalStateException.class, () -> v.agreeOnSurvivors(0))
                .getMessage()
                .contains("no rank"));
    }

    @Test
    void generationOfAKey() {
        assertEquals(0, StoreServer.generationOf("e0/unicomm.shm/opens"));
        assertEquals(12, StoreServer.generationOf("e12/x"));
        assertEquals(-1, StoreServer.generationOf("unicomm.elastic/shrink/1/0"));
        assertEquals(-1, StoreServer.generationOf("ex/y"));
        assertEquals(-1, StoreServer.generationOf("e/y"));
    }
}
