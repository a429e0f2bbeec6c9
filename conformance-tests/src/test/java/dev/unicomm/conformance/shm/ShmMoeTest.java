package dev.unicomm.conformance.shm;

import dev.unicomm.conformance.MoeSuite;
import org.junit.jupiter.api.Nested;

/** The kit's MoE rules on backend-shm with the portable MoE: 2 and 4 worker processes. */
class ShmMoeTest {
    @Nested class TwoRanks extends MoeSuite {
        @Override protected String backend() { return "shm"; }
        @Override protected int ranks() { return 2; }
    }

    @Nested class FourRanks extends MoeSuite {
        @Override protected String backend() { return "shm"; }
        @Override protected int ranks() { return 4; }
    }
}
