package dev.unicomm.backend.nvshmem.kit;

import dev.unicomm.conformance.AtomicsSuite;
import java.util.Map;

/** The kit's Atomics rules against nvshmem with 2 PEs (one GPU may host them all; run under MPS). */
class Atomics2PeKitTest extends AtomicsSuite implements OnNvshmemGpu {
    @Override protected String backend() { return "nvshmem"; }
    @Override protected int ranks() { return 2; }
    @Override protected Map<String, String> workerEnvironment() { return WORKER_ENV; }
}
