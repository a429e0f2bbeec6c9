package dev.unicomm.backend.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.Endpoint;
import dev.unicomm.api.EndpointOptions;
import dev.unicomm.api.Memory;
import dev.unicomm.backend.rdma.internal.ConnectionInfo;
import dev.unicomm.backend.rdma.internal.Gid;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Endpoints on two soft-RoCE devices that talk over a veth pair (the VM's "two hosts" in one guest):
 * data crosses the wire, and the ways a cross-host connection goes wrong give one clear error within
 * the timeout: a GID index that does not exist, GIDs of two families, an unreachable peer. An MTU
 * mismatch between the two ports is negotiated down, not an error: the transfer checks that.
 */
class RdmaTwoDevicesTest {
    private static final int SIZE = 1 << 20;
    private static final Duration TIMEOUT = Duration.ofSeconds(60);
    private Arena arena;
    private MemorySegment segA, segB;

    @BeforeEach
    void setUp() {
        WiredDevices.require();
        arena = Arena.ofShared();
        segA = arena.allocate(SIZE, 4096);
        segB = arena.allocate(SIZE, 4096);
    }

    @AfterEach
    void tearDown() {
        if (arena != null) arena.close();
    }

    private static EndpointOptions on(String device, int gidIndex) {
        return EndpointOptions.defaults()
                .withDevice(device)
                .withGidIndex(gidIndex)
                .withTimeout(TIMEOUT);
    }

    private static void fill(MemorySegment s, int n, int seed) {
        for (int i = 0; i < n; i++) s.set(ValueLayout.JAVA_BYTE, i, (byte) (seed + i * 13));
    }

    /** Writes 1 MiB rxe0 -> rxe1 and reads it back into another half, checking bytes and that they crossed veth0/veth1. */
    private void moveAMegabyte(Endpoint a) {
        long txA = WiredDevices.txBytes(WiredDevices.NETDEV_A), txB = WiredDevices.txBytes(WiredDevices.NETDEV_B);
        fill(segA, SIZE / 2, 5);
        a.write("buf", new long[] {0}, new long[] {0}, SIZE / 2);
        assertArrayEquals(
                segA.asSlice(0, SIZE / 2).toArray(ValueLayout.JAVA_BYTE),
                segB.asSlice(0, SIZE / 2).toArray(ValueLayout.JAVA_BYTE));
        a.read("buf", new long[] {0}, new long[] {SIZE / 2}, SIZE / 2); // rxe1's first half into rxe0's second half
        assertArrayEquals(
                segB.asSlice(0, SIZE / 2).toArray(ValueLayout.JAVA_BYTE),
                segA.asSlice(SIZE / 2, SIZE / 2).toArray(ValueLayout.JAVA_BYTE));
        long sentA = WiredDevices.txBytes(WiredDevices.NETDEV_A) - txA,
                sentB = WiredDevices.txBytes(WiredDevices.NETDEV_B) - txB;
        // WRITE's payload leaves through veth0, READ's response through veth1: half a MiB each way at least.
        assertTrue(
                sentA >= SIZE / 2 && sentB >= SIZE / 2,
                "the bytes did not cross the veth pair: veth0 sent " + sentA + ", veth1 " + sentB);
    }

    @Test
    void endpointsOnTwoDevicesMoveBytesOverTheWire() {
        try (Endpoint a = RdmaEndpoints.get().open(on(WiredDevices.DEVICE_A, WiredDevices.GID_IPV4));
                Endpoint b = RdmaEndpoints.get()
                        .open(on(WiredDevices.DEVICE_B, WiredDevices.GID_IPV4).withBusyPoll(false))) {
            a.registerRegion("buf", Memory.of(segA));
            b.registerRegion("buf", Memory.of(segB));
            b.connect(a.localInfo());
            a.connect(b.localInfo());
            moveAMegabyte(a);
        }
    }

    @Test
    void aGidIndexThatDoesNotExistIsNamed() {
        var outOfRange = assertThrows(
                IllegalArgumentException.class, () -> RdmaEndpoints.get().open(on(WiredDevices.DEVICE_B, 100_000)));
        assertTrue(
                outOfRange
                        .getMessage()
                        .startsWith("GID index 100000 is out of range: device rxe1 port 1 has GID indexes 0.."),
                outOfRange.getMessage());
        // rxe1's table holds two GIDs (link-local and IPv4) at 0 and 1 of a larger table: index 5 exists but holds
        // nothing.
        var empty = assertThrows(
                IllegalArgumentException.class, () -> RdmaEndpoints.get().open(on(WiredDevices.DEVICE_B, 5)));
        assertTrue(empty.getMessage().startsWith("GID index 5 of device rxe1 port 1 is"), empty.getMessage());
    }

    @Test
    void gidsOfTwoFamiliesAreRefusedBeforeConnecting() {
        try (Endpoint a = RdmaEndpoints.get().open(on(WiredDevices.DEVICE_A, WiredDevices.GID_LINK_LOCAL));
                Endpoint b = RdmaEndpoints.get().open(on(WiredDevices.DEVICE_B, WiredDevices.GID_IPV4))) {
            var e = assertThrows(IllegalArgumentException.class, () -> a.connect(b.localInfo()));
            assertTrue(e.getMessage().startsWith("GID families differ: rxe0 uses GID index 0 fe80:"), e.getMessage());
            assertTrue(e.getMessage().contains("the peer's rxe1 uses ::ffff:10.77.0.2 (IPv4)"), e.getMessage());
            assertTrue(e.getMessage().contains("unicomm.rdma.gid_index"), e.getMessage());
        }
    }

    @Test
    void anUnreachablePeerFailsTheConnectWithinTheTimeout() {
        try (Endpoint a = RdmaEndpoints.get().open(on(WiredDevices.DEVICE_A, WiredDevices.GID_IPV4));
                Endpoint b = RdmaEndpoints.get().open(on(WiredDevices.DEVICE_B, WiredDevices.GID_IPV4))) {
            // b's info, but at an address of the wire's subnet that no host answers (no ARP reply).
            ConnectionInfo real = ConnectionInfo.decode(b.localInfo());
            Gid nobody = new Gid(0, 0x0000ffff_0a4d0009L); // ::ffff:10.77.0.9
            byte[] moved = new ConnectionInfo(
                            real.device(), real.ethernet(), real.lid(), nobody, real.mtu(), real.qps(), real.regions())
                    .encode();
            long t0 = System.nanoTime();
            var e = assertThrows(RuntimeException.class, () -> {
                a.connect(moved);
                a.registerRegion("buf", Memory.of(segA));
                a.write("buf", new long[] {0}, new long[] {0}, 4096); // if the connect passed, the write must fail
            });
            long ms = (System.nanoTime() - t0) / 1_000_000;
            System.out.println("unreachable peer, after " + ms + " ms: " + e.getMessage());
            assertTrue(ms < TIMEOUT.toMillis(), "took " + ms + " ms");
            assertTrue(
                    e.getMessage().contains("::ffff:10.77.0.9")
                            || e.getMessage().contains("IBV_WC_RETRY_EXC_ERR"),
                    e.getMessage());
            assertEquals(-1, e.getMessage().indexOf('\n'), "one line: " + e.getMessage());
        }
    }

    @Test
    void portsWithDifferentMtusNegotiateTheSmaller() {
        // rxe1's port follows veth1 to 4096 bytes (netdev MTU 9000) while rxe0 stays at 1024 (veth0: 1500).
        // Without negotiation rxe1 would send 4 KiB frames that veth0 drops, and every transfer would end in retries.
        WiredDevices.ip("link", "set", WiredDevices.NETDEV_B, "mtu", "9000");
        try {
            WiredDevices.awaitActiveMtu(WiredDevices.DEVICE_B, 4096);
            WiredDevices.awaitActiveMtu(WiredDevices.DEVICE_A, 1024);
            try (Endpoint a = RdmaEndpoints.get().open(on(WiredDevices.DEVICE_A, WiredDevices.GID_IPV4));
                    Endpoint b = RdmaEndpoints.get().open(on(WiredDevices.DEVICE_B, WiredDevices.GID_IPV4))) {
                a.registerRegion("buf", Memory.of(segA));
                b.registerRegion("buf", Memory.of(segB));
                b.connect(a.localInfo());
                a.connect(b.localInfo());
                moveAMegabyte(a);
            }
        } finally {
            WiredDevices.ip("link", "set", WiredDevices.NETDEV_B, "mtu", "1500");
            WiredDevices.awaitActiveMtu(WiredDevices.DEVICE_B, 1024);
        }
    }
}
