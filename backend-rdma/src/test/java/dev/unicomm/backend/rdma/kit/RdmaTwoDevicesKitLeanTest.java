package dev.unicomm.backend.rdma.kit;

import dev.unicomm.conformance.RmaSuite;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The kit's RMA suite with ranks 0, 1 on rxe0 and 2, 3 on rxe1 ({@link RdmaTwoDevicesKit}). CI's VM run
 * (src/test/vm/run-vm-tests.sh) selects a few of its rules by name, those where every rank talks to
 * every other or moves 16 MiB across the wire (4 worker JVMs under emulation: the whole suite takes
 * about 4 minutes there); {@code RDMA_VM_TESTS=dev.unicomm.backend.rdma.kit.RdmaTwoDevicesKitLeanTest}
 * runs all of it. The other suites across the devices: {@link RdmaTwoDevicesKitTest}, by hand.
 */
class RdmaTwoDevicesKitLeanTest extends RmaSuite {
    @BeforeAll static void wired() { RdmaTwoDevicesKit.before(); }

    @AfterAll static void crossedTheWire() { RdmaTwoDevicesKit.afterCheckTheWireCarriedTraffic(); }

    @Override protected String backend() { return RdmaTwoDevicesKit.BACKEND; }
    @Override protected int ranks() { return RdmaTwoDevicesKit.RANKS; }
    @Override protected Duration timeout() { return RdmaTwoDevicesKit.TIMEOUT; }
    @Override protected long heapSize() { return RdmaTwoDevicesKit.HEAP; }
    @Override protected Map<String, String> workerEnvironment() { return RdmaTwoDevicesKit.ENV; }
}
