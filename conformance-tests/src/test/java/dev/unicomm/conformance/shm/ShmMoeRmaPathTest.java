package dev.unicomm.conformance.shm;

import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.MoeSuite;
import java.util.Map;

/**
 * The kit's MoE rules on backend-shm with direct peer access switched off for the portable MoE, so
 * that its RMA paths (puts of dispatched rows, gets of combined and low-latency rows) run as they do
 * on backends without mapped peers: 3 worker processes.
 */
class ShmMoeRmaPathTest extends MoeSuite {
    static final KitPlug PLUG = ShmKit.PLUG.ranks(3).workerEnvironment(Map.of("UNICOMM_MOE_DIRECT", "false"));
}
