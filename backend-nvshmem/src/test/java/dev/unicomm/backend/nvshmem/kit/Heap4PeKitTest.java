package dev.unicomm.backend.nvshmem.kit;

import dev.unicomm.conformance.HeapSuite;
import java.util.Map;

/** The kit's Heap rules against nvshmem with 4 PEs (one GPU may host them all; run under MPS). */
class Heap4PeKitTest extends HeapSuite implements OnNvshmemGpu {
    @Override protected String backend() { return "nvshmem"; }
    @Override protected int ranks() { return 4; }
    @Override protected Map<String, String> workerEnvironment() { return WORKER_ENV; }
}
