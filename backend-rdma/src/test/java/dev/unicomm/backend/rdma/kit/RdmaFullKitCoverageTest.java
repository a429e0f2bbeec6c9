package dev.unicomm.backend.rdma.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.unicomm.conformance.KitSuites;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Runs everywhere (no device needed): {@link RdmaFullKitTest} cannot fall behind the kit's suites. */
class RdmaFullKitCoverageTest {
    @Test
    void everySuiteOfTheDefaultRunIsInTheFullRun() {
        assertEquals(List.of(), KitSuites.missingFrom(RdmaFullKitTest.class));
    }
}
