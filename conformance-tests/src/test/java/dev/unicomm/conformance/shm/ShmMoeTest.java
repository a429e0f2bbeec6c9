package dev.unicomm.conformance.shm;

import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.MoeSuite;

/** The kit's MoE rules on backend-shm with the portable MoE at 4 worker processes (2 run in {@link ShmTwoRanksTest}). */
class ShmMoeTest extends MoeSuite {
    static final KitPlug PLUG = ShmKit.PLUG.ranks(4);
}
