package dev.unicomm.conformance.shm;

import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.kittest.CoreKitTest;

/** The kit against backend-shm with 4 ranks (4 worker JVMs per suite); MoE at 4 runs in {@link ShmMoeTest}. */
class ShmFourRanksTest extends CoreKitTest {
    static final KitPlug PLUG = ShmKit.PLUG.ranks(4);
}
