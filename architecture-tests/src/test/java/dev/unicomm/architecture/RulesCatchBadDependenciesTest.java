package dev.unicomm.architecture;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import dev.unicomm.archrules.BackendRules;
import org.junit.jupiter.api.Test;

/** Shows that each rule fails on a deliberately bad dependency (fixtures in the test sources). */
class RulesCatchBadDependenciesTest {
    private static final JavaClasses FIXTURES = new ClassFileImporter()
            .importPackages(
                    "dev.unicomm.backend.fixturea",
                    "dev.unicomm.backend.fixtureb",
                    "dev.unicomm.spi.fixture",
                    "dev.unicomm.api.fixture",
                    "dev.unicomm.api.fixturecycle");

    private static void assertViolation(ArchRule rule, String offender) {
        AssertionError e = assertThrows(AssertionError.class, () -> rule.check(FIXTURES));
        assertTrue(
                e.getMessage().contains(offender), () -> "violation should name " + offender + ":\n" + e.getMessage());
    }

    @Test
    void apiDependingOnABackendIsCaught() {
        assertViolation(ArchitectureRules.API_KNOWS_NO_BACKEND, "dev.unicomm.spi.fixture.ApiThatKnowsABackend");
    }

    @Test
    void backendDependingOnAnotherBackendIsCaught() {
        assertViolation(ArchitectureRules.BACKENDS_ARE_INDEPENDENT, "dev.unicomm.backend.fixturea.UsesOtherBackend");
    }

    @Test
    void javacppOutsideInternalIsCaught() {
        assertViolation(ArchitectureRules.NATIVES_STAY_INTERNAL, "dev.unicomm.backend.fixtureb.LeakyNativeBinding");
    }

    @Test
    void nativeMethodOutsideInternalIsCaught() {
        assertViolation(
                ArchitectureRules.NATIVE_METHODS_STAY_INTERNAL, "dev.unicomm.backend.fixtureb.LeakyNativeBinding");
    }

    @Test
    void aSecondFrontDoorInTheApiIsCaught() {
        assertViolation(ArchitectureRules.ONE_FRONT_DOOR, "dev.unicomm.api.fixture.SecondFrontDoor");
    }

    @Test
    void aBackendReachingIntoTheValidatingLayerIsCaught() {
        assertViolation(
                ArchitectureRules.INTERNALS_STAY_INSIDE, "dev.unicomm.backend.fixturea.ReachesIntoTheValidatingLayer");
    }

    /** The published rules a vendor's build runs catch the same bad classes when checked as one backend's own. */
    @Test
    void thePublishedBackendRulesCatchABackendThatLeaksOrReachesAcross() {
        AssertionError other =
                assertThrows(AssertionError.class, () -> BackendRules.noOtherBackend("dev.unicomm.backend.fixturea")
                        .check(FIXTURES));
        assertTrue(other.getMessage().contains("dev.unicomm.backend.fixturea.UsesOtherBackend"), other.getMessage());
        AssertionError internals =
                assertThrows(AssertionError.class, () -> BackendRules.apiAndSpiOnly("dev.unicomm.backend.fixturea")
                        .check(FIXTURES));
        assertTrue(
                internals.getMessage().contains("dev.unicomm.backend.fixturea.ReachesIntoTheValidatingLayer"),
                internals.getMessage());
        AssertionError natives =
                assertThrows(AssertionError.class, () -> BackendRules.check("dev.unicomm.backend.fixtureb", FIXTURES));
        assertTrue(
                natives.getMessage().contains("dev.unicomm.backend.fixtureb.LeakyNativeBinding"), natives.getMessage());
    }

    @Test
    void aPackageCycleIsCaught() {
        assertViolation(ArchitectureRules.NO_PACKAGE_CYCLES, "dev.unicomm.api.fixturecycle.CycleHalfA");
    }
}
