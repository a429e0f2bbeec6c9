package dev.unicomm.backend.rdma.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.unicomm.conformance.AtomicsSuite;
import dev.unicomm.conformance.BadInputSuite;
import dev.unicomm.conformance.FaultSuite;
import dev.unicomm.conformance.HeapSuite;
import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.KitSuites;
import dev.unicomm.conformance.LifecycleSuite;
import dev.unicomm.conformance.MoeSuite;
import dev.unicomm.conformance.RmaSuite;
import dev.unicomm.conformance.SignalSuite;
import dev.unicomm.conformance.TeamsSuite;
import dev.unicomm.conformance.collectives.CollectivesSuite;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestClassOrder;

/**
 * Every suite of the kit's default run with 2 ranks on each of two devices that talk over a wire
 * ({@link RdmaTwoDevicesKit}): the run behind the committed two-device kit report, by hand in the soft-RoCE
 * VM (too long for CI's emulated VM, which runs a few rules of {@link RdmaTwoDevicesKitLeanTest}):
 * {@code RDMA_VM_TESTS=dev.unicomm.backend.rdma.kit.RdmaTwoDevicesKitTest backend-rdma/src/test/vm/run-vm-tests.sh}.
 * Skips without the two devices. The suites that move data across the wire run first.
 */
@TestClassOrder(ClassOrderer.OrderAnnotation.class)
class RdmaTwoDevicesKitTest {
    static final KitPlug PLUG = RdmaTwoDevicesKit.PLUG;

    @BeforeAll
    static void wired() {
        RdmaTwoDevicesKit.before();
    }

    @AfterAll
    static void crossedTheWire() {
        RdmaTwoDevicesKit.afterCheckTheWireCarriedTraffic(RdmaTwoDevicesKitTest.class);
    }

    @Order(1)
    @Nested
    class Rma extends RmaSuite {}

    @Order(2)
    @Nested
    class Atomics extends AtomicsSuite {}

    @Order(3)
    @Nested
    class Signals extends SignalSuite {}

    @Order(4)
    @Nested
    class Collectives extends CollectivesSuite {}

    @Order(5)
    @Nested
    class Moe extends MoeSuite {}

    @Order(6)
    @Nested
    class Teams extends TeamsSuite {}

    @Order(7)
    @Nested
    class Heap extends HeapSuite {}

    @Order(8)
    @Nested
    class Lifecycle extends LifecycleSuite {}

    @Order(9)
    @Nested
    class BadInput extends BadInputSuite {}

    @Order(10)
    @Nested
    class Faults extends FaultSuite {}

    @Test
    void coversEverySuite() {
        assertEquals(List.of(), KitSuites.missingFrom(RdmaTwoDevicesKitTest.class));
    }
}
