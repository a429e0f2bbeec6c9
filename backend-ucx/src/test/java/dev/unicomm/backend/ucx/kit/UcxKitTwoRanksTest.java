package dev.unicomm.backend.ucx.kit;

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
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Every suite of the kit's default run against backend-ucx with 2 ranks (2 worker JVMs per suite) over {@code UCX_TLS=tcp}. */
class UcxKitTwoRanksTest {
    static final KitPlug PLUG = UcxKit.PLUG.ranks(2);

    @AfterAll
    static void theKitRan() {
        KitSuites.assertRulesRan(UcxKitTwoRanksTest.class);
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

    @Nested
    class Collectives extends CollectivesSuite {}

    @Nested
    class Moe extends MoeSuite {}

    @Test
    void coversEverySuite() {
        assertEquals(List.of(), KitSuites.missingFrom(UcxKitTwoRanksTest.class));
    }
}
