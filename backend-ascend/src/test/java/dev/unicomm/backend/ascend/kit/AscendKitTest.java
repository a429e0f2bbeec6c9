package dev.unicomm.backend.ascend.kit;

import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.collectives.CollectivesSuite;
import dev.unicomm.conformance.kittest.CoreKitTest;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Nested;

/** The kit's suites (all of the default run but MoE) on the ascend backend over the stand-in test double, 2 ranks ({@link StandInKit}). */
class AscendKitTest extends CoreKitTest {
    static final KitPlug PLUG = StandInKit.PLUG;

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
