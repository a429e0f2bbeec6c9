package dev.unicomm.conformance.shm;

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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Nested;

/**
 * The whole kit's default run against backend-shm with 2 ranks (2 worker JVMs per suite): the JUnit
 * twin of {@code unicomm conformance --backend shm}. {@code KitCoverageTest} checks that it holds one
 * nested class per suite of the default run, so the two paths run the same rules. The shm kit lives in
 * the kit's own tests because shm is the reference backend the kit's self-tests run on (a copy in
 * backend-shm would need a test-scope cycle).
 */
class ShmTwoRanksTest {
    static final KitPlug PLUG = ShmKit.PLUG.ranks(2);

    /** The JUnit entry check: a run that executed none of the nested suites' rules fails instead of passing empty. */
    @AfterAll
    static void theKitRan() {
        KitSuites.assertRulesRan(ShmTwoRanksTest.class);
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
}
