package dev.unicomm.conformance.shm;

import dev.unicomm.conformance.AtomicsSuite;
import dev.unicomm.conformance.BadInputSuite;
import dev.unicomm.conformance.FaultSuite;
import dev.unicomm.conformance.HeapSuite;
import dev.unicomm.conformance.LifecycleSuite;
import dev.unicomm.conformance.MoeSuite;
import dev.unicomm.conformance.RmaSuite;
import dev.unicomm.conformance.SignalSuite;
import dev.unicomm.conformance.TeamsSuite;
import dev.unicomm.conformance.collectives.CollectivesSuite;
import dev.unicomm.conformance.KitSuites;
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
    static final String BACKEND = "shm";
    static final int RANKS = 2;

    /** The JUnit entry check: a run that executed none of the nested suites' rules fails instead of passing empty. */
    @AfterAll static void theKitRan() { KitSuites.assertRulesRan(ShmTwoRanksTest.class); }

    @Nested class Lifecycle extends LifecycleSuite {
        @Override protected String backend() { return BACKEND; }
        @Override protected int ranks() { return RANKS; }
    }

    @Nested class Heap extends HeapSuite {
        @Override protected String backend() { return BACKEND; }
        @Override protected int ranks() { return RANKS; }
    }

    @Nested class Rma extends RmaSuite {
        @Override protected String backend() { return BACKEND; }
        @Override protected int ranks() { return RANKS; }
    }

    @Nested class Signals extends SignalSuite {
        @Override protected String backend() { return BACKEND; }
        @Override protected int ranks() { return RANKS; }
    }

    @Nested class Atomics extends AtomicsSuite {
        @Override protected String backend() { return BACKEND; }
        @Override protected int ranks() { return RANKS; }
    }

    @Nested class Teams extends TeamsSuite {
        @Override protected String backend() { return BACKEND; }
        @Override protected int ranks() { return RANKS; }
    }

    @Nested class BadInput extends BadInputSuite {
        @Override protected String backend() { return BACKEND; }
        @Override protected int ranks() { return RANKS; }
    }

    @Nested class Faults extends FaultSuite {
        @Override protected String backend() { return BACKEND; }
        @Override protected int ranks() { return RANKS; }
    }

    @Nested class Collectives extends CollectivesSuite {
        @Override protected String backend() { return BACKEND; }
        @Override protected int ranks() { return RANKS; }
    }

    @Nested class Moe extends MoeSuite {
        @Override protected String backend() { return BACKEND; }
        @Override protected int ranks() { return RANKS; }
    }
}
