package dev.unicomm.backend.rdma.kit;

import dev.unicomm.conformance.AtomicsSuite;
import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.KitSuites;
import dev.unicomm.conformance.RmaSuite;
import dev.unicomm.conformance.SignalSuite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.TestClassOrder;

/**
 * The conformance kit's lean selection against backend-rdma with 2 ranks (2 worker JVMs per suite,
 * over the TCP rendezvous store): the suites whose rules exercise the verbs paths (RMA, atomics,
 * signals), RMA first. Teams run in RdmaRmaTest; lifecycle and bad-input rules are checked by the
 * validating core layer and backend-shm's full kit; in the emulated VM more suites would take the
 * run past its 10-minute budget (each suite starts 2 worker JVMs: ~40 s there). Needs a verbs device
 * ({@link RdmaKit}'s gate): runs inside the soft-RoCE VM (src/test/vm/run-vm-tests.sh).
 */
@TestClassOrder(ClassOrderer.OrderAnnotation.class)
class RdmaKitTwoRanksTest {
    /** A small heap: the VM has little memory. */
    static final KitPlug PLUG = RdmaKit.PLUG.heapSize(16L << 20);

    @AfterAll
    static void theKitRan() {
        KitSuites.assertRulesRan(RdmaKitTwoRanksTest.class);
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
}
