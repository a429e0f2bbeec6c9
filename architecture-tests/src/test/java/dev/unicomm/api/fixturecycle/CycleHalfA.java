package dev.unicomm.api.fixturecycle;

import dev.unicomm.spi.fixture.CycleHalfB;

/** Bad fixture: one half of a package cycle (api.fixturecycle -> spi.fixture -> api.fixturecycle). */
public final class CycleHalfA {
    private CycleHalfA() {}

    public static int depth() {
        return CycleHalfB.name().length();
    }
}
