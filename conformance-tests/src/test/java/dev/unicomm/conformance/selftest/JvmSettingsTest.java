package dev.unicomm.conformance.selftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.conformance.KitReport;
import dev.unicomm.conformance.KitRunner;
import dev.unicomm.conformance.KitSettings;
import dev.unicomm.conformance.KitSuites;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * -J options (the workers' JVM options) reach every communicator the kit opens, not only the suite's own;
 * and the report says what it certifies: kit and unicomm versions, rule set and its digest, settings,
 * JVM options, timeout.
 */
class JvmSettingsTest {
    static final String OPTION = "-D" + JvmSettingsFixture.MARKER + "=from-jvm-args";
    static KitReport report;

    @BeforeAll
    static void run() {
        report = KitRunner.run(
                List.of(JvmSettingsFixture.class),
                Map.of(KitSettings.JVM_ARGS, OPTION, KitSettings.TIMEOUT, "12s"),
                null,
                null);
    }

    @Test
    void extraCommunicatorsUseTheRunsJvmSettings() {
        assertEquals(1, report.entries().size(), report.table());
        assertEquals(KitReport.Result.PASSED, report.entries().getFirst().result(), report.table());
    }

    @Test
    void theReportCarriesItsProvenance() {
        var p = report.provenance();
        assertTrue(p.kitVersion().matches("\\d+\\.\\d+\\.\\d+.*"), "kit version: " + p.kitVersion());
        assertTrue(p.unicommVersion().matches("\\d+\\.\\d+\\.\\d+.*"), "unicomm version: " + p.unicommVersion());
        long rules = KitSuites.defaultRun().stream()
                .mapToLong(s -> KitSuites.rules(s).size())
                .sum();
        assertEquals(rules, p.ruleCount(), "rule count of the default run");
        assertTrue(p.ruleSetDigest().matches("sha256:[0-9a-f]{64}"), p.ruleSetDigest());
        assertEquals("PT12S", p.settings().get(KitSettings.TIMEOUT), "the timeout the rules ran with: " + p.settings());
        assertTrue(p.jvmOptions().contains(OPTION), "worker JVM options: " + p.jvmOptions());
        String json = report.json();
        for (String field : List.of(
                "\"kitVersion\"",
                "\"unicommVersion\"",
                "\"ruleSet\"",
                "\"digest\"",
                "\"settings\"",
                "\"jvmOptions\"",
                "\"unicomm.kit.timeout\"")) assertTrue(json.contains(field), field + " in " + json);
        assertTrue(report.table().contains(p.kitVersion()) && report.table().contains("timeout PT12S"), report.table());
    }

    @Test
    void theDigestIdentifiesTheRuleSet() {
        KitReport again = new KitReport("x", "v", List.of(), 2, java.time.Instant.now(), List.of(), "");
        assertEquals(report.provenance().ruleSetDigest(), again.provenance().ruleSetDigest(), "same kit, same digest");
    }
}
