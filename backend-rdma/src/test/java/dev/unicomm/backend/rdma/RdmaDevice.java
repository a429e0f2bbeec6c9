package dev.unicomm.backend.rdma;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.unicomm.spi.Availability;
import java.util.concurrent.atomic.AtomicBoolean;

/** Test gate: device tests run where verbs work (the soft-RoCE VM) and skip with the cause elsewhere. */
public final class RdmaDevice {
    private RdmaDevice() {}

    private static final AtomicBoolean NOTICE_PRINTED = new AtomicBoolean();

    /** Skips the test unless an RDMA device is usable; fails instead when UNICOMM_RDMA_REQUIRE is set (the VM run). */
    static void require() {
        Availability a = new RdmaBackendProvider().availability();
        if (!a.available() && System.getenv("UNICOMM_RDMA_REQUIRE") != null)
            throw new AssertionError("UNICOMM_RDMA_REQUIRE is set but rdma is unavailable: " + a.cause());
        if (!a.available()) skipNotice(a.cause());
        assumeTrue(
                a.available(),
                () -> "no usable RDMA device here (" + a.cause()
                        + "); runs in the soft-RoCE VM: src/test/vm/run-vm-tests.sh");
    }

    /** One console line per test JVM (Surefire shows skip counts, not reasons). */
    public static void skipNotice(String cause) {
        if (NOTICE_PRINTED.compareAndSet(false, true))
            System.out.println("[backend-rdma] device tests SKIPPED on this host: " + cause
                    + " (they run on a real soft-RoCE device inside the VM suite, integration-test phase)");
    }

    /** The device the tests use: UNICOMM_RDMA_DEVICE, else the first one. */
    static String name() {
        String env = System.getenv("UNICOMM_RDMA_DEVICE");
        return env != null ? env : RdmaEndpoints.get().devices().get(0).name();
    }
}
