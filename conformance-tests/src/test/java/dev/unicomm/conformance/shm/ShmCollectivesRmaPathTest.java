package dev.unicomm.conformance.shm;

import dev.unicomm.conformance.collectives.CollectivesSuite;
import java.util.Map;

/**
 * The kit's collectives rules on backend-shm with direct peer access switched off, so that the
 * RMA algorithms (puts, slot-staged reductions) run on real processes: 4 worker processes.
 */
class ShmCollectivesRmaPathTest extends CollectivesSuite {
    @Override
    protected String backend() {
        return "shm";
    }

    @Override
    protected int ranks() {
        return 4;
    }

    @Override
    protected Map<String, String> workerEnvironment() {
        return Map.of("UNICOMM_COLLECTIVES_DIRECT", "false");
    }
}
