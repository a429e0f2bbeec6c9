package dev.unicomm.backend.ascend.kit;

import dev.unicomm.conformance.collectives.CollectivesSuite;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The kit's collectives rules on the ascend backend over the stand-in test double (not Ascend
 * hardware), 2 ranks. The portable collectives read and write symmetric buffers through host
 * segments, so this suite runs the backend with its host-side heap ({@code unicomm.ascend.heap.side=host}).
 */
@ExtendWith(StandInKit.class)
class AscendCollectivesKitTest extends CollectivesSuite {
    @Override protected String backend() { return StandInKit.BACKEND; }

    @Override protected int ranks() { return StandInKit.RANKS; }

    @Override protected Map<String, String> workerEnvironment() {
        Map<String, String> env = new HashMap<>(StandInKit.environment());
        env.put("UNICOMM_ASCEND_HEAP_SIDE", "host");
        return env;
    }
}
