package dev.unicomm.backend.nvshmem.kit;

import dev.unicomm.conformance.BadInputSuite;
import java.util.Map;

/** The kit's BadInput rules against nvshmem with 4 PEs (one GPU may host them all; run under MPS). */
class BadInput4PeKitTest extends BadInputSuite implements OnNvshmemGpu {
    @Override protected String backend() { return "nvshmem"; }
    @Override protected int ranks() { return 4; }
    @Override protected Map<String, String> workerEnvironment() { return WORKER_ENV; }
}
