package dev.unicomm.backend.rdma.kit;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.unicomm.backend.rdma.RdmaBackendProvider;
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
import dev.unicomm.spi.Availability;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;

/**
 * Every suite of the kit's default run against backend-rdma with 2 ranks: the documented full run
 * (the CI VM run keeps to {@link RdmaKitTwoRanksTest}'s lean selection for its time budget). Needs a verbs
 * device, so it skips elsewhere; in the soft-RoCE VM:
 * {@code RDMA_VM_TESTS=dev.unicomm.backend.rdma.kit.RdmaFullKitTest backend-rdma/src/test/vm/run-vm-tests.sh}.
 */
class RdmaFullKitTest {
    static final String BACKEND = "rdma";
    static final int RANKS = 2;
    static final Duration TIMEOUT = RdmaKitTwoRanksTest.TIMEOUT;
    static final long HEAP = 32L << 20;

    @BeforeAll static void needsADevice() {
        Availability a = new RdmaBackendProvider().availability();
        if (!a.available() && System.getenv("UNICOMM_RDMA_REQUIRE") != null)
            throw new AssertionError("UNICOMM_RDMA_REQUIRE is set but rdma is unavailable: " + a.cause());
        assumeTrue(a.available(), () -> "no usable RDMA device here (" + a.cause() + "); the full kit runs on rdma in the soft-RoCE VM");
    }

    @Nested class Lifecycle extends LifecycleSuite {
        @Override protected String backend() { return BACKEND; }
        @Override protected int ranks() { return RANKS; }
        @Override protected Duration timeout() { return TIMEOUT; }
        @Override protected long heapSize() { return HEAP; }
    }

    @Nested class Heap extends HeapSuite {
        @Override protected String backend() { return BACKEND; }
        @Override protected int ranks() { return RANKS; }
        @Override protected Duration timeout() { return TIMEOUT; }
        @Override protected long heapSize() { return HEAP; }
    }

    @Nested class Rma extends RmaSuite {
        @Override protected String backend() { return BACKEND; }
        @Override protected int ranks() { return RANKS; }
        @Override protected Duration timeout() { return TIMEOUT; }
        @Override protected long heapSize() { return HEAP; }
    }

    @Nested class Signals extends SignalSuite {
        @Override protected String backend() { return BACKEND; }
        @Override protected int ranks() { return RANKS; }
        @Override protected Duration timeout() { return TIMEOUT; }
        @Override protected long heapSize() { return HEAP; }
    }

    @Nested class Atomics extends AtomicsSuite {
        @Override protected String backend() { return BACKEND; }
        @Override protected int ranks() { return RANKS; }
        @Override protected Duration timeout() { return TIMEOUT; }
        @Override protected long heapSize() { return HEAP; }
    }

    @Nested class Teams extends TeamsSuite {
        @Override protected String backend() { return BACKEND; }
        @Override protected int ranks() { return RANKS; }
        @Override protected Duration timeout() { return TIMEOUT; }
        @Override protected long heapSize() { return HEAP; }
    }

    @Nested class BadInput extends BadInputSuite {
        @Override protected String backend() { return BACKEND; }
        @Override protected int ranks() { return RANKS; }
        @Override protected Duration timeout() { return TIMEOUT; }
        @Override protected long heapSize() { return HEAP; }
    }

    @Nested class Faults extends FaultSuite {
        @Override protected String backend() { return BACKEND; }
        @Override protected int ranks() { return RANKS; }
        @Override protected Duration timeout() { return TIMEOUT; }
        @Override protected long heapSize() { return HEAP; }
    }

    @Nested class Collectives extends CollectivesSuite {
        @Override protected String backend() { return BACKEND; }
        @Override protected int ranks() { return RANKS; }
        @Override protected Duration timeout() { return TIMEOUT; }
        @Override protected long heapSize() { return HEAP; }
    }

    @Nested class Moe extends MoeSuite {
        @Override protected String backend() { return BACKEND; }
        @Override protected int ranks() { return RANKS; }
        @Override protected Duration timeout() { return TIMEOUT; }
        @Override protected long heapSize() { return HEAP; }
    }
}
