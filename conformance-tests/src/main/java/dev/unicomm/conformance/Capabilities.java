package dev.unicomm.conformance;

import dev.unicomm.api.Capability;
import dev.unicomm.api.Communicator;
import org.junit.jupiter.api.Assumptions;

/** Capability checks inside a rule body, for rules that need a second capability. */
public final class Capabilities {
    private Capabilities() {}

    /** Skips the rule on this rank, with the reason, unless the communicator's backend declares {@code cap}. */
    public static void require(Communicator c, Capability cap) {
        Assumptions.assumeTrue(c.has(cap), () -> "backend '" + c.backend().name() + "' does not declare " + cap);
    }
}
