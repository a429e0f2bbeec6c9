package dev.unicomm.conformance.shm;

import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.collectives.CollectivesSuite;

/** The kit's collectives rules on backend-shm: 3 worker processes (a world that is not a power of two), direct peer access. */
class ShmCollectivesTest extends CollectivesSuite {
    static final KitPlug PLUG = ShmKit.PLUG.ranks(3);
}
