package dev.unicomm.backend.rdma;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.unicomm.spi.Availability;

/** Test gate: device tests run where verbs work (the soft-RoCE VM) and skip with the cause elsewhere. */
final class RdmaDevice {
    private RdmaDevice() {}

    /** Skips the test unless an RDMA device is usable; fails instead when UNICOMM_RDMA_REQUIRE is set (the VM run). */
    static void require() {
        Availability a = new RdmaBackendProvider().availability();
        if (!a.available() && System.getenv("UNICOMM_RDMA_REQUIRE") != null)
            throw new AssertionError("UNICOMM_RDMA_REQUIRE is set but rdma is unavailable: " + a.cause());
        assumeTrue(a.available(), () -> "no usable RDMA device here (" + a.cause() + "); runs in the soft-RoCE VM: src/test/vm/run-vm-tests.sh");
    }

    /** The device the tests use: UNICOMM_RDMA_DEVICE, else the first one. */
    static String name() {
        String env = System.getenv("UNICOMM_RDMA_DEVICE");
        return env != null ? env : RdmaEndpoints.get().devices().get(0).name();
    }
}
