package dev.unicomm.backend.rdma.kit;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.backend.rdma.WiredDevices;
import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.KitSuites;
import java.util.Map;

/**
 * What the kit runs across the VM's two wired devices share: 4 ranks, local ranks 0 and 1 on rxe0 and 2
 * and 3 on rxe1 (one {@code unicomm.rdma.device} list, picked by local rank, as a host with a NIC per pair
 * of GPUs sets it), GID index 1 (the IPv4 RoCE v2 GID) on both. Every pair of ranks on different devices
 * talks over the veth pair; a suite's run must have moved bytes both ways over it.
 */
final class RdmaTwoDevicesKit {
    private RdmaTwoDevicesKit() {}

    static final Map<String, String> ENV = Map.of(
            "UNICOMM_RDMA_DEVICE",
                    String.join(
                            ",",
                            WiredDevices.DEVICE_A,
                            WiredDevices.DEVICE_A,
                            WiredDevices.DEVICE_B,
                            WiredDevices.DEVICE_B),
            "UNICOMM_RDMA_GID_INDEX", "1",
            // ~1.1 s per try instead of 134 ms (NCCL's default): with 4 emulated JVMs on a loaded host, rxe's
            // responder across the wire fell more than 7 x 134 ms behind a 16 MiB put (IBV_WC_RETRY_EXC_ERR).
            "UNICOMM_RDMA_ACK_TIMEOUT", "18");

    /** The kit plug of every two-device kit test: backend-rdma's gate and timeout, 4 ranks, a small heap (the VM has little memory). */
    static final KitPlug PLUG = RdmaKit.PLUG.ranks(4).heapSize(16L << 20).workerEnvironment(ENV);

    private static long txA, txB;
    private static boolean counting;

    static void before() {
        counting = false;
        WiredDevices.require();
        counting = true;
        txA = WiredDevices.txBytes(WiredDevices.NETDEV_A);
        txB = WiredDevices.txBytes(WiredDevices.NETDEV_B);
    }

    /** The ranks on rxe0 and those on rxe1 really exchanged data over the veth pair (not each device's loopback). */
    static void afterCheckTheWireCarriedTraffic() {
        afterCheckTheWireCarriedTraffic(null);
    }

    /** As {@link #afterCheckTheWireCarriedTraffic()}, and first that the rules of {@code kitTest}'s nested suites ran. */
    static void afterCheckTheWireCarriedTraffic(Class<?> kitTest) {
        if (!counting) return; // skipped: no wired devices here (JUnit runs @AfterAll after a failed assumption too)
        if (kitTest != null) KitSuites.assertRulesRan(kitTest);
        long a = WiredDevices.txBytes(WiredDevices.NETDEV_A) - txA,
                b = WiredDevices.txBytes(WiredDevices.NETDEV_B) - txB;
        assertTrue(
                a > 64 * 1024 && b > 64 * 1024,
                "the kit's cross-device traffic did not cross the veth pair: veth0 sent " + a + " bytes, veth1 " + b);
    }
}
