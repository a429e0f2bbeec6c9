package dev.unicomm.conformance.selftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.conformance.KitReport;
import dev.unicomm.conformance.KitRunner;
import dev.unicomm.conformance.KitSuites;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The kit's JUnit entry check fails a kit test none of whose rules ran, and passes once one did. */
class KitRanGuardTest {
    /** A kit test whose suites never run here. */
    static class NeverRun {}

    @Test
    void aKitTestThatRanNoRuleFails() {
        var e = assertThrows(AssertionError.class, () -> KitSuites.assertRulesRan(NeverRun.class));
        assertTrue(e.getMessage().contains("no conformance rule"), e.getMessage());
    }

    @Test
    void aKitTestThatRanARulePasses() {
        KitReport r = KitRunner.runRules(
                JvmSettingsFixture.class,
                List.of("required_harness_extra_communicator_keeps_jvm_settings"),
                Map.of(dev.unicomm.conformance.KitSettings.JVM_ARGS, JvmSettingsTest.OPTION),
                null,
                null);
        assertEquals(1, r.entries().size(), r.table());
        assertTrue(KitSuites.rulesStarted(JvmSettingsFixture.class) > 0, "the fixture's rule was counted");
        KitSuites.assertRulesRan(JvmSettingsFixture.class);
    }
}
