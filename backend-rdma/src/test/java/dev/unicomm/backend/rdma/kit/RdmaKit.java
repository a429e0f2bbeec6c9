package dev.unicomm.backend.rdma.kit;

import dev.unicomm.conformance.KitPlug;
import java.time.Duration;

/**
 * backend-rdma's kit plug. The kit owns the gate: without a usable verbs device every suite skips with the
 * provider's cause (a failure when {@code UNICOMM_RDMA_REQUIRE} is set, as in the soft-RoCE VM run). The VM
 * emulates the CPU (about 20x slower than the host, several times more on a busy host): generous waits (a
 * passing rule ends as soon as it is done; only a failing one waits this out).
 */
final class RdmaKit {
    private RdmaKit() {}

    static final KitPlug PLUG = KitPlug.backend("rdma")
            .ranks(2)
            .timeout(Duration.ofSeconds(120))
            .skipWhereUnavailable(
                    "UNICOMM_RDMA_REQUIRE",
                    "the kit runs on rdma in the soft-RoCE VM: backend-rdma/src/test/vm/run-vm-tests.sh");
}
