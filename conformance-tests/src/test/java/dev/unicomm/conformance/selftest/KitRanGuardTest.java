package dev.unicomm.conformance.selftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.KitReport;
import dev.unicomm.conformance.KitRunner;
import dev.unicomm.conformance.KitSuites;
import dev.unicomm.conformance.kittest.CoreKitTest;
import dev.unicomm.conformance.kittest.DefaultRunKitTest;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.discovery.DiscoverySelectors;

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

    /** A kit test on the kit's base class: the nested suites are inherited, the plug is its own. */
    static class OnTheBase extends DefaultRunKitTest {
        static final KitPlug PLUG = KitPlug.backend("shm").ranks(2);
    }

    /** The same, for the run that selects none of its suites (counts are per class and JVM). */
    static class NoSuiteSelected extends DefaultRunKitTest {
        static final KitPlug PLUG = KitPlug.backend("shm").ranks(2);
    }

    @Test
    void anInheritedSuiteFindsTheSubclassPlugAndCountsUnderTheSubclass() {
        KitReport r = KitRunner.runSelected(
                List.of(DiscoverySelectors.selectNestedMethod(
                        List.of(OnTheBase.class), CoreKitTest.Heap.class, "required_heap_allocate_free")),
                Map.of(),
                null,
                null);
        assertEquals(1, r.entries().size(), r.table());
        assertEquals(KitReport.Result.PASSED, r.entries().getFirst().result(), r.table());
        assertEquals(1, KitSuites.rulesStarted(OnTheBase.class), "counted under the subclass");
        assertEquals(0, KitSuites.rulesStarted(CoreKitTest.class), "not under the declaring base");
    }

    @Test
    void theBaseClassFailsAKitTestWhoseSuitesDidNotRun() {
        // only the base's coverage test selected: no nested suite runs, so the entry check after the class fails it
        KitReport r = KitRunner.runSelected(
                List.of(DiscoverySelectors.selectMethod(NoSuiteSelected.class, "coversEverySuite")),
                Map.of(),
                null,
                null);
        assertTrue(
                r.entries().stream()
                        .anyMatch(e -> e.result() == KitReport.Result.FAILED
                                && e.rule().equals("(suite set-up or tear-down)")
                                && e.reason().contains("no conformance rule of NoSuiteSelected")),
                r.table());
    }
}
