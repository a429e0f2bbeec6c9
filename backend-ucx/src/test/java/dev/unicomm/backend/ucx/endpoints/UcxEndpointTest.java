package dev.unicomm.backend.ucx.endpoints;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.unicomm.api.Capability;
import dev.unicomm.api.CommException;
import dev.unicomm.api.Endpoint;
import dev.unicomm.api.EndpointOptions;
import dev.unicomm.api.Endpoints;
import dev.unicomm.api.Memory;
import dev.unicomm.api.Unicomm;
import dev.unicomm.backend.ucx.UcxBackendProvider;
import dev.unicomm.spi.Availability;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The endpoint operations of rdma's RdmaEndpointTest, against ucx endpoints on one host over {@code UCX_TLS=tcp}
 * (UCX's software RMA: every put and get is completed by the peer's progress thread).
 */
class UcxEndpointTest {
    private static final int SIZE = 1 << 20;
    private static Endpoints ucx;
    private Arena arena;
    private MemorySegment segA, segB;
    private Endpoint a, b;

    @BeforeAll
    static void tcpOnly() {
        Availability av = new UcxBackendProvider().availability();
        assumeTrue(av.available(), () -> "ucx unavailable here: " + av.cause() + " (fix: " + av.fix() + ")");
        UcxEnv.set("UCX_TLS", "tcp");
        ucx = Unicomm.endpoints("ucx");
    }

    @AfterAll
    static void restore() {
        UcxEnv.set("UCX_TLS", null);
    }

    @BeforeEach
    void connectPair() {
        arena = Arena.ofShared();
        segA = arena.allocate(SIZE, 4096);
        segB = arena.allocate(SIZE, 4096);
        EndpointOptions o = EndpointOptions.defaults().withTimeout(Duration.ofSeconds(30));
        a = ucx.open(o);
        b = ucx.open(o.withBusyPoll(false)); // one spinning before it sleeps, one sleeping at once
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
    void theBackendDeclaresEndpointsAndListsItsNetworkDevices() {
        assertTrue(new UcxBackendProvider().capabilities().contains(Capability.P2P_ENDPOINTS));
        assertTrue(ucx.devices().stream().anyMatch(n -> n.name().equals("lo")), "UCX's tcp sees lo: " + ucx.devices());
        var noDev = assertThrows(
                IllegalArgumentException.class,
                () -> ucx.open(EndpointOptions.defaults().withDevice("no_such_dev")));
        assertTrue(noDev.getMessage().contains("no network device 'no_such_dev'"), noDev.getMessage());
    }

    @Test
    void batchedWriteAndReadMoveTheBytes() {
        int block = 512, n = 600;
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
        fill(segA, 0, SIZE / 2, 17); // one large block (rendezvous-sized)
        b.read("buf", new long[] {0}, new long[] {0}, SIZE / 2);
        assertArrayEquals(bytes(segA, 0, SIZE / 2), bytes(segB, 0, SIZE / 2));
    }

    @Test
    void writeWithImmediateCompletesThePeersReceiveAfterTheData() {
        CompletableFuture<Endpoint.Received> r = b.recv("buf", 0, 64);
        fill(segA, 4096, 512, 5);
        a.await(a.writeWithImm("buf", 8192, 4096, 512, 0xC0FFEE));
        Endpoint.Received got = b.await(r);
        assertEquals(512, got.bytes());
        assertEquals(0xC0FFEE, got.immediate().orElseThrow());
        assertArrayEquals(bytes(segA, 4096, 512), bytes(segB, 8192, 512));
        // the receive completes only once the bytes are there: check it on the peer's side without awaiting the writer
        for (int round = 0; round < 50; round++) {
            CompletableFuture<Endpoint.Received> next = b.recv("buf", 0, 8);
            fill(segA, 0, 65536, round);
            a.writeWithImm("buf", 65536, 0, 65536, -round);
            assertEquals(-round, b.await(next).immediate().orElseThrow());
            assertArrayEquals(bytes(segA, 0, 65536), bytes(segB, 65536, 65536), "round " + round);
        }
    }

    @Test
    void sendsAndImmediatesMeetTheReceivesInCallOrder() {
        CompletableFuture<Endpoint.Received> r1 = b.recv("buf", 100, 300);
        CompletableFuture<Endpoint.Received> r2 = b.recv("buf", 1000, 300);
        CompletableFuture<Endpoint.Received> r3 = b.recv("buf", 2000, 300);
        fill(segA, 0, 300, 9);
        CompletableFuture<Void> s1 = a.send("buf", 0, 200);
        CompletableFuture<Void> w = a.writeWithImm("buf", 4096, 0, 300, 77);
        CompletableFuture<Void> s2 = a.send("buf", 0, 300);
        a.await(CompletableFuture.allOf(s1, w, s2));
        assertEquals(200, b.await(r1).bytes());
        assertTrue(b.await(r1).immediate().isEmpty());
        assertEquals(77, b.await(r2).immediate().orElseThrow());
        assertEquals(300, b.await(r3).bytes());
        assertArrayEquals(bytes(segA, 0, 200), bytes(segB, 100, 200));
        assertArrayEquals(bytes(segA, 0, 300), bytes(segB, 2000, 300));
        assertArrayEquals(bytes(segA, 0, 300), bytes(segB, 4096, 300));
    }

    @Test
    void aMessageLongerThanTheReceiveFailsItAndBreaksTheReceiver() {
        CompletableFuture<Endpoint.Received> small = b.recv("buf", 0, 8);
        a.await(a.send("buf", 0, 64));
        CommException e = assertThrows(CommException.class, () -> b.await(small));
        assertTrue(e.getMessage().toLowerCase(java.util.Locale.ROOT).contains("truncated"), e.getMessage());
        assertFalse(b.isConnected());
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
        var foreign = assertThrows(IllegalArgumentException.class, () -> a.updateRemote(a.localInfo()));
        assertTrue(foreign.getMessage().contains("another endpoint"), foreign.getMessage());
    }

    @Test
    void badInputIsRejectedBeforeUcxIsCalled() {
        var noRegion = assertThrows(
                IllegalArgumentException.class, () -> a.readBatch("nope", new long[] {0}, new long[] {0}, 8));
        assertTrue(noRegion.getMessage().contains("no local region 'nope'"), noRegion.getMessage());
        var remoteRange = assertThrows(
                IndexOutOfBoundsException.class, () -> a.writeBatch("buf", new long[] {SIZE - 4}, new long[] {0}, 8));
        assertTrue(
                remoteRange.getMessage().contains("remote")
                        && remoteRange.getMessage().contains(SIZE + " bytes"),
                remoteRange.getMessage());
        var past = assertThrows(
                IndexOutOfBoundsException.class, () -> a.readBatch("buf", new long[] {0}, new long[] {0}, SIZE + 1L));
        assertTrue(past.getMessage().contains("outside region 'buf'"), past.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> a.readBatch("buf", new long[] {0}, new long[] {-1}, 8));
        assertThrows(IndexOutOfBoundsException.class, () -> a.recv("buf", SIZE, 1));
        var pairs = assertThrows(
                IllegalArgumentException.class, () -> a.readBatch("buf", new long[] {0, 8}, new long[] {0}, 8));
        assertTrue(pairs.getMessage().contains("2 remote offsets but 1 local"), pairs.getMessage());
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
        try (Endpoint lonely = ucx.open()) {
            lonely.registerRegion("buf", Memory.of(segA));
            var notConnected = assertThrows(IllegalStateException.class, () -> lonely.send("buf", 0, 8));
            assertTrue(notConnected.getMessage().contains("not connected"), notConnected.getMessage());
        }
        b.close();
        var closed = assertThrows(IllegalStateException.class, () -> b.send("buf", 0, 8), "closed endpoint");
        assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
    }

    @Test
    void forgedOrForeignInfoIsRefusedBeforeUcxSeesIt() {
        try (Endpoint c = ucx.open()) {
            byte[] good = b.localInfo();
            for (int cut : new int[] {0, 5, good.length / 2, good.length - 1}) {
                var e = assertThrows(IllegalArgumentException.class, () -> c.connect(Arrays.copyOf(good, cut)));
                assertTrue(e.getMessage().startsWith("remote info is not a valid ucx endpoint info"), e.getMessage());
            }
            byte[] flipped = good.clone();
            flipped[good.length - 10] ^= 0x40; // a byte of the last region's rkey
            var altered = assertThrows(IllegalArgumentException.class, () -> c.connect(flipped));
            assertTrue(altered.getMessage().contains("checksum"), altered.getMessage());
            var other = assertThrows(
                    IllegalArgumentException.class, () -> c.connect("RDMA-info-of-another-backend".getBytes()));
            assertTrue(other.getMessage().contains("magic"), other.getMessage());
            assertThrows(IllegalArgumentException.class, () -> c.connect(null));
            assertFalse(c.isConnected());
            c.connect(good); // still usable after the refusals
            assertTrue(c.isConnected());
        }
    }

    /** Without UCX_TLS UCX picks its shared-memory transports on one host (posix/sysv, cma): the same operations work there. */
    @Test
    void theDefaultTransportsOfOneHostWorkToo() {
        UcxEnv.set("UCX_TLS", null);
        try (Endpoint c = ucx.open();
                Endpoint d = ucx.open()) {
            c.registerRegion("buf", Memory.of(segA));
            d.registerRegion("buf", Memory.of(segB));
            d.connect(c.localInfo());
            c.connect(d.localInfo());
            fill(segA, 0, 65536, 23);
            c.write("buf", new long[] {65536}, new long[] {0}, 65536);
            assertArrayEquals(bytes(segA, 0, 65536), bytes(segB, 65536, 65536));
            CompletableFuture<Endpoint.Received> r = d.recv("buf", 0, 16);
            c.await(c.writeWithImm("buf", 0, 0, 4096, 9));
            assertEquals(9, d.await(r).immediate().orElseThrow());
            c.read("buf", new long[] {65536}, new long[] {131072}, 65536);
            assertArrayEquals(bytes(segB, 65536, 65536), bytes(segA, 131072, 65536));
        } finally {
            UcxEnv.set("UCX_TLS", "tcp");
        }
    }

    @Test
    void closingWithTransfersOutstandingEndsEveryFutureAndReturns() throws Exception {
        CompletableFuture<Endpoint.Received> posted = a.recv("buf", 0, 8);
        for (int i = 0; i < 40; i++)
            b.recv("buf", 0, 4096); // every message below finds a receive (none left unexpected)
        java.util.List<CompletableFuture<Void>> out = new java.util.ArrayList<>();
        long[] offs = new long[64];
        for (int i = 0; i < offs.length; i++) offs[i] = i * 4096L;
        for (int i = 0; i < 20; i++) {
            out.add(a.writeBatch("buf", offs, offs, 4096));
            out.add(a.writeWithImm("buf", 0, 0, 4096, i));
            out.add(a.send("buf", 0, 64));
        }
        long t0 = System.nanoTime();
        a.close();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(ms < 5_000, "close took " + ms + " ms");
        for (CompletableFuture<Void> f : out)
            f.handle((v, e) -> null).get(5, java.util.concurrent.TimeUnit.SECONDS); // each one ended
        var closed = assertThrows(
                java.util.concurrent.ExecutionException.class,
                () -> posted.get(5, java.util.concurrent.TimeUnit.SECONDS));
        assertTrue(
                closed.getCause().getMessage().contains("closed"),
                closed.getCause().getMessage());
        a = null;
    }

    @Test
    void aPeerThatDisappearsFailsTheTransferAndBreaksTheEndpoint() {
        CompletableFuture<Endpoint.Received> pending = a.recv("buf", 0, 8);
        b.close();
        CommException e = assertThrows(CommException.class, () -> {
            for (int i = 0; i < 1000; i++)
                a.write("buf", new long[] {0}, new long[] {0}, 64); // bounded: the first failure ends it
        });
        assertTrue(e.getMessage().contains("UCX") || e.getMessage().contains("broken"), e.getMessage());
        CommException r = assertThrows(CommException.class, () -> a.await(pending));
        assertTrue(r.getMessage().contains("peer is gone") || r.getMessage().contains("broken"), r.getMessage());
        assertFalse(a.isConnected());
        var again = assertThrows(CommException.class, () -> a.readBatch("buf", new long[] {0}, new long[] {0}, 8));
        assertTrue(again.getMessage().contains("broken"), again.getMessage());
    }
}
