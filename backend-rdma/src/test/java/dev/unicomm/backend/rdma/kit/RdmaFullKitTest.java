package dev.unicomm.backend.rdma.kit;

import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.kittest.DefaultRunKitTest;

/**
 * Every suite of the kit's default run against backend-rdma with 2 ranks: the documented full run
 * (the CI VM run keeps to {@link RdmaKitTwoRanksTest}'s lean selection for its time budget). Needs a verbs
 * device ({@link RdmaKit}'s gate), so it skips elsewhere; in the soft-RoCE VM:
 * {@code RDMA_VM_TESTS=dev.unicomm.backend.rdma.kit.RdmaFullKitTest backend-rdma/src/test/vm/run-vm-tests.sh}.
 */
class RdmaFullKitTest extends DefaultRunKitTest {
    static final KitPlug PLUG = RdmaKit.PLUG.heapSize(32L << 20);
}
