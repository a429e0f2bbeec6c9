package dev.unicomm.backend.rdma.kit;

import dev.unicomm.conformance.AtomicsSuite;
import dev.unicomm.conformance.MoeSuite;
import dev.unicomm.conformance.RmaSuite;
import dev.unicomm.conformance.SignalSuite;
import dev.unicomm.conformance.collectives.CollectivesSuite;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestClassOrder;

/**
 * The kit's RMA, atomics, signals, collectives and MoE suites with 2 ranks on each of two devices that
 * talk over a wire ({@link RdmaTwoDevicesKit}): the run behind the committed two-device kit report, by hand
 * in the soft-RoCE VM (too long for CI's emulated VM, which runs {@link RdmaTwoDevicesKitLeanTest}):
 * {@code RDMA_VM_TESTS=dev.unicomm.backend.rdma.kit.RdmaTwoDevicesKitTest backend-rdma/src/test/vm/run-vm-tests.sh}.
 * Skips without the two devices.
 */
@TestClassOrder(ClassOrderer.OrderAnnotation.class)
class RdmaTwoDevicesKitTest {
    @BeforeAll static void wired() { RdmaTwoDevicesKit.before(); }

    @AfterAll static void crossedTheWire() { RdmaTwoDevicesKit.afterCheckTheWireCarriedTraffic(); }

    @Order(1) @Nested class Rma extends RmaSuite {
        @Override protected String backend() { return RdmaTwoDevicesKit.BACKEND; }
        @Override protected int ranks() { return RdmaTwoDevicesKit.RANKS; }
        @Override protected Duration timeout() { return RdmaTwoDevicesKit.TIMEOUT; }
        @Override protected long heapSize() { return RdmaTwoDevicesKit.HEAP; }
        @Override protected Map<String, String> workerEnvironment() { return RdmaTwoDevicesKit.ENV; }
    }

    @Order(2) @Nested class Atomics extends AtomicsSuite {
        @Override protected String backend() { return RdmaTwoDevicesKit.BACKEND; }
        @Override protected int ranks() { return RdmaTwoDevicesKit.RANKS; }
        @Override protected Duration timeout() { return RdmaTwoDevicesKit.TIMEOUT; }
        @Override protected long heapSize() { return RdmaTwoDevicesKit.HEAP; }
        @Override protected Map<String, String> workerEnvironment() { return RdmaTwoDevicesKit.ENV; }
    }

    @Order(3) @Nested class Signals extends SignalSuite {
        @Override protected String backend() { return RdmaTwoDevicesKit.BACKEND; }
        @Override protected int ranks() { return RdmaTwoDevicesKit.RANKS; }
        @Override protected Duration timeout() { return RdmaTwoDevicesKit.TIMEOUT; }
        @Override protected long heapSize() { return RdmaTwoDevicesKit.HEAP; }
        @Override protected Map<String, String> workerEnvironment() { return RdmaTwoDevicesKit.ENV; }
    }

    @Order(4) @Nested class Collectives extends CollectivesSuite {
        @Override protected String backend() { return RdmaTwoDevicesKit.BACKEND; }
        @Override protected int ranks() { return RdmaTwoDevicesKit.RANKS; }
        @Override protected Duration timeout() { return RdmaTwoDevicesKit.TIMEOUT; }
        @Override protected long heapSize() { return RdmaTwoDevicesKit.HEAP; }
        @Override protected Map<String, String> workerEnvironment() { return RdmaTwoDevicesKit.ENV; }
    }

    @Order(5) @Nested class Moe extends MoeSuite {
        @Override protected String backend() { return RdmaTwoDevicesKit.BACKEND; }
        @Override protected int ranks() { return RdmaTwoDevicesKit.RANKS; }
        @Override protected Duration timeout() { return RdmaTwoDevicesKit.TIMEOUT; }
        @Override protected long heapSize() { return RdmaTwoDevicesKit.HEAP; }
        @Override protected Map<String, String> workerEnvironment() { return RdmaTwoDevicesKit.ENV; }
    }
}
