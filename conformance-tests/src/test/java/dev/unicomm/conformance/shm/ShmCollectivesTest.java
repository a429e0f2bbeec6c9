package dev.unicomm.conformance.shm;

import dev.unicomm.conformance.collectives.CollectivesSuite;

/** The kit's collectives rules on backend-shm: 3 worker processes (a world that is not a power of two), direct peer access. */
class ShmCollectivesTest extends CollectivesSuite {
    @Override
    protected String backend() {
        return "shm";
    }

    @Override
    protected int ranks() {
        return 3;
    }
}
