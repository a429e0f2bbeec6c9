package dev.unicomm.conformance.shm;

import dev.unicomm.conformance.AtomicsSuite;
import dev.unicomm.conformance.BadInputSuite;
import dev.unicomm.conformance.FaultSuite;
import dev.unicomm.conformance.HeapSuite;
import dev.unicomm.conformance.LifecycleSuite;
import dev.unicomm.conformance.RmaSuite;
import dev.unicomm.conformance.SignalSuite;
import dev.unicomm.conformance.TeamsSuite;
import org.junit.jupiter.api.Nested;

/** The whole kit against backend-shm with 4 ranks (4 worker JVMs per suite). */
class ShmFourRanksTest {
    static final String BACKEND = "shm";
    static final int RANKS = 4;

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
}
