package dev.unicomm.conformance.selftest;

import dev.unicomm.conformance.KitSuite;
import org.junit.jupiter.api.Test;

/** A suite whose job the launcher must reject (zero ranks): run by {@link ToolFailureTest}. */
public class ToolFailureFixture extends KitSuite {
    @Override
    protected String backend() {
        return "shm";
    }

    @Override
    protected int ranks() {
        return 0;
    }

    @Override
    protected boolean connectAtStart() {
        return false;
    }

    @Test
    void required_harness_cannot_start() {
        spmd(pe -> {});
    }
}
