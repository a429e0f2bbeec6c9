package dev.unicomm.conformance.shm;

import dev.unicomm.conformance.KitPlug;

/** backend-shm's kit plug: the reference backend runs everywhere, so no gate and no untested rule; each kit test picks its size. */
final class ShmKit {
    private ShmKit() {}

    static final KitPlug PLUG = KitPlug.backend("shm");
}
