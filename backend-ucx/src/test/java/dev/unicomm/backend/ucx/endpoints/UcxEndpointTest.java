package dev.unicomm.backend.ucx.endpoints;

import static dev.unicomm.testsupport.EndpointPair.bytes;
import static dev.unicomm.testsupport.EndpointPair.fill;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.Capability;
import dev.unicomm.api.CommException;
import dev.unicomm.api.Endpoint;
import dev.unicomm.api.EndpointOptions;
import dev.unicomm.api.Endpoints;
import dev.unicomm.api.Memory;
import dev.unicomm.api.Unicomm;
import dev.unicomm.backend.ucx.UcxAvailable;
import dev.unicomm.backend.ucx.UcxBackendProvider;
import dev.unicomm.testsupport.EndpointPair;
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
    private static Endpoints ucx;
    private EndpointPair p;

    @BeforeAll
    static void tcpOnly() {
        UcxAvailable.assume();
        UcxEnv.set("UCX_TLS", "tcp");
        ucx = Unicomm.endpoints("ucx");
    }

    @AfterAll
    static void restore() {
        UcxEnv.set("UCX_TLS", null);
    }

    @BeforeEach
    void connectPair() {
        // a spins before it sleeps, b (no busy polling) sleeps at once
        p = new EndpointPair(ucx, EndpointOptions.defaults().withTimeout(Duration.ofSeconds(30)));
    }

    @AfterEach
    void close() {
        if (p != null) p.close();
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
        p.checkBatchedWriteAndRead();
        fill(p.segA, 0, EndpointPair.SIZE / 2, 17); // one large block (rendezvous-sized)
        p.b.read("buf", new long[] {0}, new long[] {0}, EndpointPair.SIZE / 2);
        assertArrayEquals(bytes(p.segA, 0, EndpointPair.SIZE / 2), bytes(p.segB, 0, EndpointPair.SIZE / 2));
    }

    @Test
    void writeWithImmediateCompletesThePeersReceiveAfterTheData() {
        p.checkWriteWithImmediate();
        // the receive completes only once the bytes are there: check it on the peer's side without awaiting the writer
        for (int round = 0; round < 50; round++) {
            CompletableFuture<Endpoint.Received> next = p.b.recv("buf", 0, 8);
            fill(p.segA, 0, 65536, round);
            p.a.writeWithImm("buf", 65536, 0, 65536, -round);
            assertEquals(-round, p.b.await(next).immediate().orElseThrow());
            assertArrayEquals(bytes(p.segA, 0, 65536), bytes(p.segB, 65536, 65536), "round " + round);
        }
    }

    @Test
    void sendsAndImmediatesMeetTheReceivesInCallOrder() {
        CompletableFuture<Endpoint.Received> r1 = p.b.recv("buf", 100, 300);
        CompletableFuture<Endpoint.Received> r2 = p.b.recv("buf", 1000, 300);
        CompletableFuture<Endpoint.Received> r3 = p.b.recv("buf", 2000, 300);
        fill(p.segA, 0, 300, 9);
        CompletableFuture<Void> s1 = p.a.send("buf", 0, 200);
        CompletableFuture<Void> w = p.a.writeWithImm("buf", 4096, 0, 300, 77);
        CompletableFuture<Void> s2 = p.a.send("buf", 0, 300);
        p.a.await(CompletableFuture.allOf(s1, w, s2));
        assertEquals(200, p.b.await(r1).bytes());
        assertTrue(p.b.await(r1).immediate().isEmpty());
        assertEquals(77, p.b.await(r2).immediate().orElseThrow());
        assertEquals(300, p.b.await(r3).bytes());
        assertArrayEquals(bytes(p.segA, 0, 200), bytes(p.segB, 100, 200));
        assertArrayEquals(bytes(p.segA, 0, 300), bytes(p.segB, 2000, 300));
        assertArrayEquals(bytes(p.segA, 0, 300), bytes(p.segB, 4096, 300));
    }

    @Test
    void aMessageLongerThanTheReceiveFailsItAndBreaksTheReceiver() {
        CompletableFuture<Endpoint.Received> small = p.b.recv("buf", 0, 8);
        p.a.await(p.a.send("buf", 0, 64));
        CommException e = assertThrows(CommException.class, () -> p.b.await(small));
        assertTrue(e.getMessage().toLowerCase(java.util.Locale.ROOT).contains("truncated"), e.getMessage());
        assertFalse(p.b.isConnected());
    }

    @Test
    void regionsRegisteredLaterAreLearnedWithUpdateRemote() {
        p.checkRegionRegisteredLater();
        var foreign = assertThrows(IllegalArgumentException.class, () -> p.a.updateRemote(p.a.localInfo()));
        assertTrue(foreign.getMessage().contains("another endpoint"), foreign.getMessage());
    }

    @Test
    void badInputIsRejectedBeforeUcxIsCalled() {
        p.checkRangesAndNamesRefused();
        var past = assertThrows(
                IndexOutOfBoundsException.class,
                () -> p.a.readBatch("buf", new long[] {0}, new long[] {0}, EndpointPair.SIZE + 1L));
        assertTrue(past.getMessage().contains("outside region 'buf'"), past.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> p.a.recv("buf", EndpointPair.SIZE, 1));
        var pairs = assertThrows(
                IllegalArgumentException.class, () -> p.a.readBatch("buf", new long[] {0, 8}, new long[] {0}, 8));
        assertTrue(pairs.getMessage().contains("2 remote offsets but 1 local"), pairs.getMessage());
        p.checkMisuseRefused();
        try (Endpoint lonely = ucx.open()) {
            p.checkUnconnectedRefuses(lonely);
        }
        p.b.close();
        var closed = assertThrows(IllegalStateException.class, () -> p.b.send("buf", 0, 8), "closed endpoint");
        assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
    }

    @Test
    void forgedOrForeignInfoIsRefusedBeforeUcxSeesIt() {
        try (Endpoint c = ucx.open()) {
            byte[] good = p.b.localInfo();
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
            c.registerRegion("buf", Memory.of(p.segA));
            d.registerRegion("buf", Memory.of(p.segB));
            d.connect(c.localInfo());
            c.connect(d.localInfo());
            fill(p.segA, 0, 65536, 23);
            c.write("buf", new long[] {65536}, new long[] {0}, 65536);
            assertArrayEquals(bytes(p.segA, 0, 65536), bytes(p.segB, 65536, 65536));
            CompletableFuture<Endpoint.Received> r = d.recv("buf", 0, 16);
            c.await(c.writeWithImm("buf", 0, 0, 4096, 9));
            assertEquals(9, d.await(r).immediate().orElseThrow());
            c.read("buf", new long[] {65536}, new long[] {131072}, 65536);
            assertArrayEquals(bytes(p.segB, 65536, 65536), bytes(p.segA, 131072, 65536));
        } finally {
            UcxEnv.set("UCX_TLS", "tcp");
        }
    }

    @Test
    void closingWithTransfersOutstandingEndsEveryFutureAndReturns() throws Exception {
        CompletableFuture<Endpoint.Received> posted = p.a.recv("buf", 0, 8);
        for (int i = 0; i < 40; i++)
            p.b.recv("buf", 0, 4096); // every message below finds a receive (none left unexpected)
        java.util.List<CompletableFuture<Void>> out = new java.util.ArrayList<>();
        long[] offs = new long[64];
        for (int i = 0; i < offs.length; i++) offs[i] = i * 4096L;
        for (int i = 0; i < 20; i++) {
            out.add(p.a.writeBatch("buf", offs, offs, 4096));
            out.add(p.a.writeWithImm("buf", 0, 0, 4096, i));
            out.add(p.a.send("buf", 0, 64));
        }
        long t0 = System.nanoTime();
        p.a.close();
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
    }

    @Test
    void aPeerThatDisappearsFailsTheTransferAndBreaksTheEndpoint() {
        CompletableFuture<Endpoint.Received> pending = p.a.recv("buf", 0, 8);
        p.b.close();
        CommException e = assertThrows(CommException.class, () -> {
            for (int i = 0; i < 1000; i++)
                p.a.write("buf", new long[] {0}, new long[] {0}, 64); // bounded: the first failure ends it
        });
        assertTrue(e.getMessage().contains("UCX") || e.getMessage().contains("broken"), e.getMessage());
        CommException r = assertThrows(CommException.class, () -> p.a.await(pending));
        assertTrue(r.getMessage().contains("peer is gone") || r.getMessage().contains("broken"), r.getMessage());
        assertFalse(p.a.isConnected());
        var again = assertThrows(CommException.class, () -> p.a.readBatch("buf", new long[] {0}, new long[] {0}, 8));
        assertTrue(again.getMessage().contains("broken"), again.getMessage());
    }
}
