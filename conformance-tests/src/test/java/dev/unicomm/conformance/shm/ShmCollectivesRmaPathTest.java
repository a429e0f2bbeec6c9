package dev.unicomm.conformance.shm;

import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.collectives.CollectivesSuite;
import java.util.Map;

/**
 * The kit's collectives rules on backend-shm with direct peer access switched off, so that the
 * RMA algorithms (puts, slot-staged reductions) run on real processes: 4 worker processes.
 */
class ShmCollectivesRmaPathTest extends CollectivesSuite {
    static final KitPlug PLUG = ShmKit.PLUG.ranks(4).workerEnvironment(Map.of("UNICOMM_COLLECTIVES_DIRECT", "false"));
}
