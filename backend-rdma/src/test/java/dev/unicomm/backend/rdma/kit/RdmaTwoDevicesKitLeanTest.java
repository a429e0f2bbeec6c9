package dev.unicomm.backend.rdma.kit;

import dev.unicomm.conformance.RmaSuite;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

/**
 * The CI run across two devices (in the soft-RoCE VM's lean suite): the kit's RMA suite with ranks 0, 1
 * on rxe0 and 2, 3 on rxe1 ({@link RdmaTwoDevicesKit}). The other suites across the devices run in
 * {@link RdmaTwoDevicesKitTest} by hand (4 worker JVMs under emulation cost minutes per suite).
 */
class RdmaTwoDevicesKitLeanTest {
    @BeforeAll static void wired() { RdmaTwoDevicesKit.before(); }

    @AfterAll static void crossedTheWire() { RdmaTwoDevicesKit.afterCheckTheWireCarriedTraffic(); }

    @Nested class Rma extends RmaSuite {
        @Override protected String backend() { return RdmaTwoDevicesKit.BACKEND; }
        @Override protected int ranks() { return RdmaTwoDevicesKit.RANKS; }
        @Override protected Duration timeout() { return RdmaTwoDevicesKit.TIMEOUT; }
        @Override protected long heapSize() { return RdmaTwoDevicesKit.HEAP; }
        @Override protected Map<String, String> workerEnvironment() { return RdmaTwoDevicesKit.ENV; }
    }
}
