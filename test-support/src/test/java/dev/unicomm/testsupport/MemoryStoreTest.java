package dev.unicomm.testsupport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.spi.Store;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class MemoryStoreTest {
    private static final Duration LONG = Duration.ofSeconds(30);
    /** One thread per waiting rank (the common pool may have a single worker on a small machine). */
    private static final Executor RANKS = r -> Thread.ofPlatform().daemon().start(r);

    @Test
    void aValueSetByOneRankReachesAWaitingRank() throws Exception {
        MemoryStore store = new MemoryStore(2, LONG);
        Store r0 = store.view(0), r1 = store.view(1);
        CompletableFuture<byte[]> waiting = CompletableFuture.supplyAsync(() -> r1.get("k"), RANKS);
        r0.set("k", new byte[] {1, 2, 3});
        assertArrayEquals(new byte[] {1, 2, 3}, waiting.get(30, TimeUnit.SECONDS));
        assertTrue(r1.contains("k"));
        assertFalse(r1.contains("other"));
    }

    @Test
    void countersAddAcrossRanks() {
        MemoryStore store = new MemoryStore(3, LONG);
        assertEquals(5, store.view(0).add("c", 5));
        assertEquals(3, store.view(2).add("c", -2));
        assertEquals(3, store.view(1).add("c", 0));
    }

    @Test
    void theBarrierWaitsForEveryRank() throws Exception {
        MemoryStore store = new MemoryStore(3, LONG);
        CompletableFuture<Void> a =
                CompletableFuture.runAsync(() -> store.view(0).barrier("b"), RANKS);
        CompletableFuture<Void> b =
                CompletableFuture.runAsync(() -> store.view(1).barrier("b"), RANKS);
        Thread.sleep(200);
        assertFalse(a.isDone() || b.isDone(), "two of three ranks must not pass the barrier");
        store.view(2).barrier("b");
        a.get(30, TimeUnit.SECONDS);
        b.get(30, TimeUnit.SECONDS);
    }

    @Test
    void aWaitRunsIntoItsLimit() {
        MemoryStore store = new MemoryStore(2, LONG);
        var e = assertThrows(CommTimeoutException.class, () -> store.view(0).get("never", Duration.ofMillis(50)));
        assertTrue(e.getMessage().contains("never"), e.getMessage());
        assertThrows(
                CommTimeoutException.class,
                () -> new MemoryStore(2, Duration.ofMillis(50)).view(0).barrier("alone"));
    }

    @Test
    void anAbortFailsWaitsAndHealthChecksNamingTheFirstAbortingRank() throws Exception {
        MemoryStore store = new MemoryStore(3, LONG);
        Store r0 = store.view(0);
        r0.checkHealthy();
        CompletableFuture<byte[]> waiting = CompletableFuture.supplyAsync(() -> r0.get("never"), RANKS);
        store.view(2).abort("rank 2 hit a bug");
        store.view(1).abort("a later abort");
        var e = assertThrows(java.util.concurrent.ExecutionException.class, () -> waiting.get(30, TimeUnit.SECONDS));
        var aborted = (CommAbortedException) e.getCause();
        assertEquals(2, aborted.failedRank());
        assertTrue(aborted.getMessage().contains("rank 2 hit a bug"), aborted.getMessage());
        var health =
                assertThrows(CommAbortedException.class, () -> store.view(1).checkHealthy());
        assertEquals(2, health.failedRank());
        assertTrue(store.aborted());
    }

    @Test
    void valuesAreCopiedAndAClosedViewRefusesUse() {
        MemoryStore store = new MemoryStore(1, LONG);
        Store s = store.view(0);
        byte[] v = {7};
        s.set("k", v);
        v[0] = 8;
        s.get("k")[0] = 9;
        assertArrayEquals(new byte[] {7}, s.get("k"));
        s.close();
        assertThrows(IllegalStateException.class, () -> s.get("k"));
        assertArrayEquals(new byte[] {7}, store.view(0).get("k"), "closing a view leaves the job's values");
    }

    @Test
    void badArgumentsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> new MemoryStore(0, LONG));
        assertThrows(IllegalArgumentException.class, () -> new MemoryStore(1, Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> new MemoryStore(2, LONG).view(2));
        assertThrows(
                NullPointerException.class,
                () -> new MemoryStore(1, LONG).view(0).set(null, new byte[0]));
    }
}
