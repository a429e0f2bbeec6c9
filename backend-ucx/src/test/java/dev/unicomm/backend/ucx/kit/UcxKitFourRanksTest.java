package dev.unicomm.backend.ucx.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.unicomm.conformance.AtomicsSuite;
import dev.unicomm.conformance.BadInputSuite;
import dev.unicomm.conformance.FaultSuite;
import dev.unicomm.conformance.KitSuites;
import dev.unicomm.conformance.MoeSuite;
import dev.unicomm.conformance.HeapSuite;
import dev.unicomm.conformance.LifecycleSuite;
import dev.unicomm.conformance.RmaSuite;
import dev.unicomm.conformance.SignalSuite;
import dev.unicomm.conformance.TeamsSuite;
import dev.unicomm.conformance.collectives.CollectivesSuite;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/** Every suite of the kit's default run against backend-ucx with 4 ranks on this host over {@code UCX_TLS=tcp}. */
class UcxKitFourRanksTest {
    static final int RANKS = 4;

    @BeforeAll static void needsUcx() { UcxKit.assumeUcx(); }

    @Nested class Rma extends RmaSuite {
        @Override protected String backend() { return UcxKit.BACKEND; }
        @Override protected int ranks() { return RANKS; }
        @Override protected Duration timeout() { return UcxKit.TIMEOUT; }
        @Override protected long heapSize() { return UcxKit.HEAP; }
        @Override protected Map<String, String> workerEnvironment() { return UcxKit.TCP_ONLY; }
    }

    @Nested class Signals extends SignalSuite {
        @Override protected String backend() { return UcxKit.BACKEND; }
        @Override protected int ranks() { return RANKS; }
        @Override protected Duration timeout() { return UcxKit.TIMEOUT; }
        @Override protected long heapSize() { return UcxKit.HEAP; }
        @Override protected Map<String, String> workerEnvironment() { return UcxKit.TCP_ONLY; }
    }

    @Nested class Atomics extends AtomicsSuite {
        @Override protected String backend() { return UcxKit.BACKEND; }
        @Override protected int ranks() { return RANKS; }
        @Override protected Duration timeout() { return UcxKit.TIMEOUT; }
        @Override protected long heapSize() { return UcxKit.HEAP; }
        @Override protected Map<String, String> workerEnvironment() { return UcxKit.TCP_ONLY; }
    }

    @Nested class Teams extends TeamsSuite {
        @Override protected String backend() { return UcxKit.BACKEND; }
        @Override protected int ranks() { return RANKS; }
        @Override protected Duration timeout() { return UcxKit.TIMEOUT; }
        @Override protected long heapSize() { return UcxKit.HEAP; }
        @Override protected Map<String, String> workerEnvironment() { return UcxKit.TCP_ONLY; }
    }

    @Nested class Heap extends HeapSuite {
        @Override protected String backend() { return UcxKit.BACKEND; }
        @Override protected int ranks() { return RANKS; }
        @Override protected Duration timeout() { return UcxKit.TIMEOUT; }
        @Override protected long heapSize() { return UcxKit.HEAP; }
        @Override protected Map<String, String> workerEnvironment() { return UcxKit.TCP_ONLY; }
    }

    @Nested class Lifecycle extends LifecycleSuite {
        @Override protected String backend() { return UcxKit.BACKEND; }
        @Override protected int ranks() { return RANKS; }
        @Override protected Duration timeout() { return UcxKit.TIMEOUT; }
        @Override protected long heapSize() { return UcxKit.HEAP; }
        @Override protected Map<String, String> workerEnvironment() { return UcxKit.TCP_ONLY; }
    }

    @Nested class Collectives extends CollectivesSuite {
        @Override protected String backend() { return UcxKit.BACKEND; }
        @Override protected int ranks() { return RANKS; }
        @Override protected Duration timeout() { return UcxKit.TIMEOUT; }
        @Override protected long heapSize() { return UcxKit.HEAP; }
        @Override protected Map<String, String> workerEnvironment() { return UcxKit.TCP_ONLY; }
    }

    @Nested class BadInput extends BadInputSuite {
        @Override protected String backend() { return UcxKit.BACKEND; }
        @Override protected int ranks() { return RANKS; }
        @Override protected Duration timeout() { return UcxKit.TIMEOUT; }
        @Override protected long heapSize() { return UcxKit.HEAP; }
        @Override protected Map<String, String> workerEnvironment() { return UcxKit.TCP_ONLY; }
    }

    @Nested class Faults extends FaultSuite {
        @Override protected String backend() { return UcxKit.BACKEND; }
        @Override protected int ranks() { return RANKS; }
        @Override protected Duration timeout() { return UcxKit.TIMEOUT; }
        @Override protected long heapSize() { return UcxKit.HEAP; }
        @Override protected Map<String, String> workerEnvironment() { return UcxKit.TCP_ONLY; }
    }

    @Nested class Moe extends MoeSuite {
        @Override protected String backend() { return UcxKit.BACKEND; }
        @Override protected int ranks() { return RANKS; }
        @Override protected Duration timeout() { return UcxKit.TIMEOUT; }
        @Override protected long heapSize() { return UcxKit.HEAP; }
        @Override protected Map<String, String> workerEnvironment() { return UcxKit.TCP_ONLY; }
    }

    @Test void coversEverySuite() { assertEquals(List.of(), KitSuites.missingFrom(UcxKitFourRanksTest.class)); }
}
