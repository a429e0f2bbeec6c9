package dev.unicomm.backend.rdma;

import static dev.unicomm.testsupport.EndpointPair.bytes;
import static dev.unicomm.testsupport.EndpointPair.fill;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommException;
import dev.unicomm.api.Endpoint;
import dev.unicomm.api.EndpointOptions;
import dev.unicomm.api.NicInfo;
import dev.unicomm.testsupport.EndpointPair;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** DLSlime's operations between two endpoints on one device (needs a verbs device: the soft-RoCE VM). */
class RdmaEndpointTest {
    private EndpointPair p;

    @BeforeEach
    void connectPair() {
        RdmaDevice.require();
        EndpointOptions o = EndpointOptions.defaults()
                .withDevice(RdmaDevice.name())
                .withQueuePairs(2)
                .withTimeout(Duration.ofSeconds(30));
        p = new EndpointPair(RdmaEndpoints.get(), o); // a busy-polling, b event-driven
    }

    @AfterEach
    void close() {
        if (p != null) p.close();
    }

    @Test
    void devicesListPortsAndGids() {
        NicInfo nic = RdmaEndpoints.get().devices().stream()
                .filter(n -> n.name().equals(RdmaDevice.name()))
                .findFirst()
                .orElseThrow();
        NicInfo.Port port = nic.ports().get(0);
        assertEquals(1, port.number());
        assertTrue(port.active());
        assertTrue(port.activeMtu() >= 256);
        assertFalse(port.gids().isEmpty());
        if (port.linkLayer().equals("Ethernet"))
            assertTrue(
                    port.gids().stream().anyMatch(g -> g.type().equals("RoCE v2")),
                    "a RoCE port has a RoCE v2 GID: " + port.gids());
    }

    @Test
    void batchedWriteAndReadMoveTheBytes() {
        p.checkBatchedWriteAndRead(); // more than one chunk of outstanding work requests, over 2 queue pairs
    }

    @Test
    void writeWithImmediateCompletesThePeersReceive() {
        p.checkWriteWithImmediate();
    }

    @Test
    void sendLandsInThePostedReceive() {
        CompletableFuture<Endpoint.Received> r1 = p.b.recv("buf", 100, 300);
        CompletableFuture<Endpoint.Received> r2 = p.b.recv("buf", 1000, 300);
        fill(p.segA, 0, 300, 9);
        p.a.await(p.a.send("buf", 0, 200));
        p.a.await(p.a.send("buf", 0, 300));
        assertEquals(200, p.b.await(r1).bytes());
        assertTrue(p.b.await(r1).immediate().isEmpty());
        assertEquals(300, p.b.await(r2).bytes());
        assertArrayEquals(bytes(p.segA, 0, 200), bytes(p.segB, 100, 200));
        assertArrayEquals(bytes(p.segA, 0, 300), bytes(p.segB, 1000, 300));
    }

    @Test
    void regionsRegisteredLaterAreLearnedWithUpdateRemote() {
        p.checkRegionRegisteredLater();
    }

    @Test
    void badInputIsRejectedBeforeAnythingIsPosted() {
        p.checkRangesAndNamesRefused();
        p.checkMisuseRefused();
        try (Endpoint lonely =
                RdmaEndpoints.get().open(EndpointOptions.defaults().withDevice(RdmaDevice.name()))) {
            p.checkUnconnectedRefuses(lonely);
            var qpMismatch = assertThrows(IllegalArgumentException.class, () -> lonely.connect(p.b.localInfo()));
            assertTrue(qpMismatch.getMessage().contains("queue pairs"), qpMismatch.getMessage());
        }
        assertThrows(IllegalArgumentException.class, () -> RdmaEndpoints.get()
                .open(EndpointOptions.defaults().withDevice("no_such_dev")));
        assertThrows(IllegalArgumentException.class, () -> RdmaEndpoints.get()
                .open(EndpointOptions.defaults().withDevice(RdmaDevice.name()).withGidIndex(100000)));
        p.b.close();
        assertThrows(IllegalStateException.class, () -> p.b.send("buf", 0, 8), "closed endpoint");
    }

    @Test
    void aPeerThatDisappearsFailsTheTransferWithTheCompletionStatus() {
        p.b.close();
        CompletableFuture<Void> f = p.a.writeBatch("buf", new long[] {0}, new long[] {0}, 64);
        CommException e = assertThrows(CommException.class, () -> p.a.await(f));
        assertTrue(e.getMessage().contains("IBV_WC_"), e.getMessage());
        assertFalse(p.a.isConnected());
        var again = assertThrows(CommException.class, () -> p.a.readBatch("buf", new long[] {0}, new long[] {0}, 8));
        assertTrue(again.getMessage().contains("broken"), again.getMessage());
    }
}
