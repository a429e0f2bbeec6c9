package dev.unicomm.backend.nvshmem.kit;

import dev.unicomm.conformance.FaultSuite;
import java.util.Map;

/** The kit's Fault rules against nvshmem with 4 PEs (one GPU may host them all; run under MPS). */
class Fault4PeKitTest extends FaultSuite implements OnNvshmemGpu {
    @Override protected String backend() { return "nvshmem"; }
    @Override protected int ranks() { return 4; }
    @Override protected Map<String, String> workerEnvironment() { return WORKER_ENV; }
}
