package dev.unicomm.backend.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommException;
import dev.unicomm.api.Endpoint;
import dev.unicomm.api.EndpointOptions;
import dev.unicomm.api.Memory;
import dev.unicomm.api.NicInfo;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** DLSlime's operations between two endpoints on one device (needs a verbs device: the soft-RoCE VM). */
class RdmaEndpointTest {
    private static final int SIZE = 1 << 20;
    private Arena arena;
    private MemorySegment segA, segB;
    private Endpoint a, b;

    @BeforeEach
    void connectPair() {
        RdmaDevice.require();
        arena = Arena.ofShared();
        segA = arena.allocate(SIZE, 4096);
        segB = arena.allocate(SIZE, 4096);
        EndpointOptions o = EndpointOptions.defaults()
                .withDevice(RdmaDevice.name())
                .withQueuePairs(2)
                .withTimeout(Duration.ofSeconds(30));
        a = RdmaEndpoints.get().open(o);
        b = RdmaEndpoints.get().open(o.withBusyPoll(false)); // one busy-polling, one event-driven
        a.registerRegion("buf", Memory.of(segA));
        b.registerRegion("buf", Memory.of(segB));
        b.connect(a.localInfo());
        a.connect(b.localInfo());
    }

    @AfterEach
    void close() {
        if (a != null) a.close();
        if (b != null) b.close();
        if (arena != null) arena.close();
    }

    private static void fill(MemorySegment s, long off, int n, int seed) {
        for (int i = 0; i < n; i++) s.set(ValueLayout.JAVA_BYTE, off + i, (byte) (seed + i * 7));
    }

    private static byte[] bytes(MemorySegment s, long off, int n) {
        return s.asSlice(off, n).toArray(ValueLayout.JAVA_BYTE);
    }

    @Test
    void devicesListPortsAndGids() {
        NicInfo nic = RdmaEndpoints.get().devices().stream()
                .filter(n -> n.name().equals(RdmaDevice.name()))
                .findFirst()
                .orElseThrow();
        NicInfo.Port p = nic.ports().get(0);
        assertEquals(1, p.number());
        assertTrue(p.active());
        assertTrue(p.activeMtu() >= 256);
        assertFalse(p.gids().isEmpty());
        if (p.linkLayer().equals("Ethernet"))
            assertTrue(
                    p.gids().stream().anyMatch(g -> g.type().equals("RoCE v2")),
                    "a RoCE port has a RoCE v2 GID: " + p.gids());
    }

    @Test
    void batchedWriteAndReadMoveTheBytes() {
        int block = 512, n = 600; // more than one chunk of outstanding work requests, over 2 queue pairs
        long[] remote = new long[n], local = new long[n];
        for (int i = 0; i < n; i++) {
            local[i] = (long) i * block;
            remote[i] = SIZE / 2 + (long) (n - 1 - i) * block; // reversed order on the peer
        }
        fill(segA, 0, n * block, 3);
        a.write("buf", remote, local, block);
        for (int i = 0; i < n; i++)
            assertArrayEquals(bytes(segA, local[i], block), bytes(segB, remote[i], block), "block " + i);
        fill(segB, 0, 64 * 1024, 11);
        a.read("buf", new long[] {0, 8192, 16384}, new long[] {SIZE - 3 * 8192, SIZE - 2 * 8192, SIZE - 8192}, 8192);
        assertArrayEquals(bytes(segB, 0, 3 * 8192), bytes(segA, SIZE - 3 * 8192, 3 * 8192));
    }

    @Test
    void writeWithImmediateCompletesThePeersReceive() {
        CompletableFuture<Endpoint.Received> r = b.recv("buf", 0, 64);
        fill(segA, 4096, 512, 5);
        a.await(a.writeWithImm("buf", 8192, 4096, 512, 0xC0FFEE));
        Endpoint.Received got = b.await(r);
        assertEquals(512, got.bytes());
        assertEquals(0xC0FFEE, got.immediate().orElseThrow());
        assertArrayEquals(bytes(segA, 4096, 512), bytes(segB, 8192, 512));
    }

    @Test
    void sendLandsInThePostedReceive() {
        CompletableFuture<Endpoint.Received> r1 = b.recv("buf", 100, 300);
        CompletableFuture<Endpoint.Received> r2 = b.recv("buf", 1000, 300);
        fill(segA, 0, 300, 9);
        a.await(a.send("buf", 0, 200));
        a.await(a.send("buf", 0, 300));
        assertEquals(200, b.await(r1).bytes());
        assertTrue(b.await(r1).immediate().isEmpty());
        assertEquals(300, b.await(r2).bytes());
        assertArrayEquals(bytes(segA, 0, 200), bytes(segB, 100, 200));
        assertArrayEquals(bytes(segA, 0, 300), bytes(segB, 1000, 300));
    }

    @Test
    void regionsRegisteredLaterAreLearnedWithUpdateRemote() {
        MemorySegment extraB = arena.allocate(4096, 4096);
        MemorySegment extraA = arena.allocate(4096, 4096);
        b.registerRegion("late", Memory.of(extraB));
        a.registerRegion("late", Memory.of(extraA));
        var unknown = assertThrows(
                IllegalArgumentException.class, () -> a.writeBatch("late", new long[] {0}, new long[] {0}, 8));
        assertTrue(unknown.getMessage().contains("updateRemote"), unknown.getMessage());
        a.updateRemote(b.localInfo());
        extraA.set(ValueLayout.JAVA_LONG, 0, 42L);
        a.write("late", new long[] {0}, new long[] {0}, 8);
        assertEquals(42L, extraB.get(ValueLayout.JAVA_LONG, 0));
    }

    @Test
    void badInputIsRejectedBeforeAnythingIsPosted() {
        var noRegion = assertThrows(
                IllegalArgumentException.class, () -> a.readBatch("nope", new long[] {0}, new long[] {0}, 8));
        assertTrue(noRegion.getMessage().contains("no local region 'nope'"), noRegion.getMessage());
        var remoteRange = assertThrows(
                IndexOutOfBoundsException.class, () -> a.writeBatch("buf", new long[] {SIZE - 4}, new long[] {0}, 8));
        assertTrue(
                remoteRange.getMessage().contains("remote")
                        && remoteRange.getMessage().contains(SIZE + " bytes"),
                remoteRange.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> a.readBatch("buf", new long[] {0}, new long[] {-1}, 8));
        assertThrows(IllegalArgumentException.class, () -> a.readBatch("buf", new long[] {0, 8}, new long[] {0}, 8));
        assertThrows(IllegalArgumentException.class, () -> a.readBatch("buf", new long[] {0}, new long[] {0}, 0));
        var twice = assertThrows(IllegalStateException.class, () -> a.connect(b.localInfo()));
        assertTrue(twice.getMessage().contains("already connected"), twice.getMessage());
        assertThrows(IllegalArgumentException.class, () -> a.registerRegion("buf", Memory.of(segA)), "duplicate name");
        assertThrows(
                IllegalArgumentException.class,
                () -> a.registerRegion("heap", Memory.of(MemorySegment.ofArray(new byte[64]))));
        a.unregisterRegion("buf");
        assertThrows(
                IllegalArgumentException.class,
                () -> a.writeBatch("buf", new long[] {0}, new long[] {0}, 8),
                "unregistered");
        Arena gone = Arena.ofConfined();
        a.registerRegion("freed", Memory.of(gone.allocate(4096, 4096)));
        gone.close();
        var freed = assertThrows(IllegalStateException.class, () -> a.send("freed", 0, 8));
        assertTrue(freed.getMessage().contains("freed"), freed.getMessage());
        try (Endpoint lonely =
                RdmaEndpoints.get().open(EndpointOptions.defaults().withDevice(RdmaDevice.name()))) {
            lonely.registerRegion("buf", Memory.of(segA));
            var notConnected = assertThrows(IllegalStateException.class, () -> lonely.send("buf", 0, 8));
            assertTrue(notConnected.getMessage().contains("not connected"), notConnected.getMessage());
            var qpMismatch = assertThrows(IllegalArgumentException.class, () -> lonely.connect(b.localInfo()));
            assertTrue(qpMismatch.getMessage().contains("queue pairs"), qpMismatch.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> RdmaEndpoints.get()
                .open(EndpointOptions.defaults().withDevice("no_such_dev")));
        assertThrows(IllegalArgumentException.class, () -> RdmaEndpoints.get()
                .open(EndpointOptions.defaults().withDevice(RdmaDevice.name()).withGidIndex(100000)));
        b.close();
        assertThrows(IllegalStateException.class, () -> b.send("buf", 0, 8), "closed endpoint");
    }

    @Test
    void aPeerThatDisappearsFailsTheTransferWithTheCompletionStatus() {
        b.close();
        CompletableFuture<Void> f = a.writeBatch("buf", new long[] {0}, new long[] {0}, 64);
        CommException e = assertThrows(CommException.class, () -> a.await(f));
        assertTrue(e.getMessage().contains("IBV_WC_"), e.getMessage());
        assertFalse(a.isConnected());
        var again = assertThrows(CommException.class, () -> a.readBatch("buf", new long[] {0}, new long[] {0}, 8));
        assertTrue(again.getMessage().contains("broken"), again.getMessage());
    }
}
