package dev.unicomm.conformance.selftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.conformance.KitReport;
import dev.unicomm.conformance.KitRunner;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The harness reports passes, failures naming the rank, hangs, deaths and skips, and recovers. */
class HarnessTest {
    static KitReport report;

    @BeforeAll
    static void runFixture() {
        report = KitRunner.run(List.of(HarnessFixture.class), Map.of(), null, null);
    }

    static KitReport.Entry entry(String rule) {
        return report.entries().stream()
                .filter(e -> e.rule().equals(rule))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no entry for " + rule + " in " + report.table()));
    }

    @Test
    void everyRuleIsReported() {
        assertEquals(11, report.entries().size(), report.table());
    }

    @Test
    void passingRuleAndValuesReachTheParent() {
        assertEquals(KitReport.Result.PASSED, entry("required_harness_passes").result(), report.table());
    }

    @Test
    void failureNamesTheRankAndMessage() {
        var e = entry("required_harness_fails_on_rank1");
        assertEquals(KitReport.Result.FAILED, e.result());
        assertTrue(
                e.reason().contains("failed on rank 1 of 2") && e.reason().contains("deliberate mismatch"), e.reason());
        assertTrue(
                e.reason().lines().findFirst().orElseThrow().startsWith("rank 1 FAILED: deliberate mismatch"),
                "the cause is on the first line, which progress and table show: " + e.reason());
        assertTrue(!e.reason().contains("rank 0 "), "rank 0 passed and is not blamed: " + e.reason());
    }

    @Test
    void hangIsCutOffAndTheJobRestarts() {
        var e = entry("required_harness_rank0_hangs");
        assertEquals(KitReport.Result.FAILED, e.result());
        assertTrue(e.reason().contains("rank 0 HUNG"), e.reason());
        assertTrue(e.time().toSeconds() < 30, "hang cut off after the rule timeout, took " + e.time());
        assertEquals(
                KitReport.Result.PASSED,
                entry("required_harness_runs_after_a_hang").result(),
                report.table());
    }

    @Test
    void deadRankIsNamedWithItsExitCode() {
        var e = entry("required_harness_rank1_dies");
        assertEquals(KitReport.Result.FAILED, e.result());
        assertTrue(e.reason().contains("rank 1 DIED") && e.reason().contains("exited with code 7"), e.reason());
    }

    @Test
    void requiredRulesCannotBeSkippedButMayNotApply() {
        var a = entry("required_harness_skips_by_assumption");
        assertEquals(KitReport.Result.FAILED, a.result(), "a required rule that skips fails");
        assertTrue(a.reason().contains("cannot be skipped") && a.reason().contains("deliberately skipped"), a.reason());
        var n = entry("required_harness_not_applicable");
        assertEquals(KitReport.Result.SKIPPED, n.result(), "too few ranks for the rule: not applicable");
        assertTrue(n.reason().contains("needs 99"), n.reason());
    }

    @Test
    void reportStatesItsCertificationLevel() {
        assertEquals(KitReport.Certification.NOT_CERTIFIED, report.certification());
        assertTrue(report.table().contains("certification: NOT_CERTIFIED at 2 ranks"), report.table());
        assertTrue(report.table().contains("worker logs: "), report.table());
        assertTrue(report.json().contains("\"certification\": \"NOT_CERTIFIED\""), report.json());
    }

    @Test
    void skipsCarryTheirReason() {
        var c = entry("optional_harness_skips_by_capability");
        assertEquals(KitReport.Result.SKIPPED, c.result());
        assertTrue(c.reason().contains("does not declare NATIVE_MOE"), c.reason());
    }

    @Test
    void ruleNamesMustMatchTheirLevel() {
        var e = entry("optional_harness_misnamed");
        assertEquals(KitReport.Result.FAILED, e.result());
        assertTrue(e.reason().contains("optional rules name the capability"), e.reason());
    }

    @Test
    void faultRulesExpectTheirVictimToDie() {
        assertEquals(
                KitReport.Result.PASSED, entry("required_harness_victim_killed").result(), report.table());
        var e = entry("required_harness_victim_survives");
        assertEquals(KitReport.Result.FAILED, e.result());
        assertTrue(e.reason().contains("was meant to be killed"), e.reason());
    }

    @Test
    void aSuiteWhoseJobCannotStartFailsEveryRuleWithTheCause() {
        KitReport r = KitRunner.run(List.of(UnknownBackendFixture.class), Map.of(), null, null);
        assertTrue(r.entries().size() >= 10, r.table());
        for (KitReport.Entry e : r.entries()) {
            if (e.rule().startsWith("optional_")) continue; // their capability check names the same cause
            assertEquals(KitReport.Result.FAILED, e.result(), e.rule());
            assertTrue(
                    e.reason().contains("backend 'no-such-backend' is not on the class path; found: [")
                            && e.reason().contains("shm"),
                    e.reason());
        }
    }

    @Test
    void reportRendersAsTableAndJson() {
        String table = report.table();
        assertTrue(table.contains("required_harness_passes") && table.contains("11 rules:"), table);
        String json = report.json();
        assertTrue(
                json.contains("\"rule\":\"required_harness_rank1_dies\"") && json.contains("\"result\":\"FAILED\""),
                json);
        assertEquals(
                report.entries().size(),
                json.split("\"rule\":", -1).length - 1,
                report.entries().stream().map(KitReport.Entry::rule).collect(Collectors.joining(",")));
    }
}
