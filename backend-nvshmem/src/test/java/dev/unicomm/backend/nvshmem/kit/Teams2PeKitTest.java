package dev.unicomm.backend.nvshmem.kit;

import dev.unicomm.conformance.TeamsSuite;
import java.util.Map;

/** The kit's Teams rules against nvshmem with 2 PEs (one GPU may host them all; run under MPS). */
class Teams2PeKitTest extends TeamsSuite implements OnNvshmemGpu {
    @Override protected String backend() { return "nvshmem"; }
    @Override protected int ranks() { return 2; }
    @Override protected Map<String, String> workerEnvironment() { return WORKER_ENV; }
}
