package dev.unicomm.backend.ascend.kit;

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
import dev.unicomm.conformance.collectives.CollectivesSuite;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Nested;

/** The kit's suites (all of the default run but MoE) on the ascend backend over the stand-in test double, 2 ranks ({@link StandInKit}). */
class AscendKitTest {
    static final KitPlug PLUG = StandInKit.PLUG;

    @AfterAll
    static void theKitRan() {
        KitSuites.assertRulesRan(AscendKitTest.class);
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

    /**
     * The portable collectives read and write symmetric buffers through host segments, so this suite runs
     * the backend with its host-side heap ({@code unicomm.ascend.heap.side=host}).
     */
    @Nested
    class Collectives extends CollectivesSuite {
        @Override
        protected Map<String, String> workerEnvironment() {
            Map<String, String> env = new HashMap<>(super.workerEnvironment());
            env.put("UNICOMM_ASCEND_HEAP_SIDE", "host");
            return env;
        }
    }
}
