package dev.unicomm.conformance.selftest;

import dev.unicomm.conformance.HeapSuite;
import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.TeamsSuite;

/** Suites wired through a {@link KitPlug} only (no hook overridden); run by {@link KitPlugTest}. */
final class PlugFixtures {
    private PlugFixtures() {}

    static final String UNTESTED_RULE = "required_heap_zero_bytes";
    static final String UNTESTED_WHY = "the selftest's backend cannot allocate zero bytes";

    /** shm at 2 ranks with one rule the plug marks untested. */
    public static class WithUntested extends HeapSuite {
        static final KitPlug PLUG =
                KitPlug.backend("shm").ranks(2).heapSize(8L << 20).untested(UNTESTED_WHY, UNTESTED_RULE);
    }

    /** A plug naming a rule the kit does not have. */
    public static class UnknownUntested extends HeapSuite {
        static final KitPlug PLUG = KitPlug.backend("shm").untested("a typo", "required_heap_no_such_rule");
    }

    /** A plug for a backend that is not on the class path, gated: a missing jar is a failure, not a skip. */
    public static class GatedButMissing extends HeapSuite {
        static final KitPlug PLUG = KitPlug.backend("no-such-backend").skipWhereUnavailable(null, null);
    }

    /** shm's teams at 2 ranks: a strided split has one member there. */
    public static class TeamsAtTwo extends TeamsSuite {
        static final KitPlug PLUG = KitPlug.backend("shm").ranks(2).heapSize(8L << 20);
    }
}
