package dev.unicomm.backend.rdma.kit;

import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.RmaSuite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The kit's RMA suite with ranks 0, 1 on rxe0 and 2, 3 on rxe1 ({@link RdmaTwoDevicesKit}). CI's VM run
 * (src/test/vm/run-vm-tests.sh) selects a few of its rules by name, those where every rank talks to
 * every other or moves 16 MiB across the wire (4 worker JVMs under emulation: the whole suite takes
 * about 4 minutes there); {@code RDMA_VM_TESTS=dev.unicomm.backend.rdma.kit.RdmaTwoDevicesKitLeanTest}
 * runs all of it. Every suite across the devices: {@link RdmaTwoDevicesKitTest}, by hand.
 */
class RdmaTwoDevicesKitLeanTest extends RmaSuite {
    static final KitPlug PLUG = RdmaTwoDevicesKit.PLUG;

    @BeforeAll
    static void wired() {
        RdmaTwoDevicesKit.before();
    }

    @AfterAll
    static void crossedTheWire() {
        RdmaTwoDevicesKit.afterCheckTheWireCarriedTraffic();
    }
}
