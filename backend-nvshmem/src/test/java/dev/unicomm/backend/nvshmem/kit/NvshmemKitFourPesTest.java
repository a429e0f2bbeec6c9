package dev.unicomm.backend.nvshmem.kit;

import dev.unicomm.conformance.AtomicsSuite;
import dev.unicomm.conformance.BadInputSuite;
import dev.unicomm.conformance.FaultSuite;
import dev.unicomm.conformance.HeapSuite;
import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.KitSuites;
import dev.unicomm.conformance.LifecycleSuite;
import dev.unicomm.conformance.RmaSuite;
import dev.unicomm.conformance.SignalSuite;
import dev.unicomm.conformance.TeamsSuite;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Nested;

/**
 * The kit's lifecycle, heap, RMA, signal, atomic, team, bad-input and fault suites against nvshmem with 4
 * PEs; {@link NvshmemKit}'s gate skips them, with the cause, where no GPU with NVSHMEM is available.
 */
class NvshmemKitFourPesTest {
    static final KitPlug PLUG = NvshmemKit.PLUG.ranks(4);

    @AfterAll
    static void theKitRan() {
        KitSuites.assertRulesRan(NvshmemKitFourPesTest.class);
    }

    @Nested
    class Lifecycle extends LifecycleSuite {}

    @Nested
    class Heap extends HeapSuite {}

    @Nested
    class Rma extends RmaSuite {}

    @Nested
    class Signals extends SignalSuite {}

    @Nested
    class Atomics extends AtomicsSuite {}

    @Nested
    class Teams extends TeamsSuite {}

    @Nested
    class BadInput extends BadInputSuite {}

    @Nested
    class Faults extends FaultSuite {}
}
