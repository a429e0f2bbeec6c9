package dev.unicomm.backend.nvshmem.kit;

import dev.unicomm.conformance.SignalSuite;
import java.util.Map;

/** The kit's Signal rules against nvshmem with 4 PEs (one GPU may host them all; run under MPS). */
class Signal4PeKitTest extends SignalSuite implements OnNvshmemGpu {
    @Override protected String backend() { return "nvshmem"; }
    @Override protected int ranks() { return 4; }
    @Override protected Map<String, String> workerEnvironment() { return WORKER_ENV; }
}
