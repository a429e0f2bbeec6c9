package dev.unicomm.conformance.selftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.KitReport;
import dev.unicomm.conformance.KitRunner;
import dev.unicomm.conformance.KitSuites;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * One plug per backend: the kit takes the backend, ranks and settings from a kit test's static {@link KitPlug},
 * evaluates its gate (skip with the provider's cause where the hardware is missing; a missing jar still fails),
 * skips its untested rules with their reason, refuses an untested rule the kit does not have, and a report with
 * an untested rule does not certify.
 */
class KitPlugTest {

    @Test
    void theGateSkipsEveryRuleWithTheProvidersCauseAndStartsNoJob() {
        List<String> rules = List.of("required_heap_allocate_free", "required_heap_zero_bytes");
        KitReport r = KitRunner.runRules(GatedFixture.class, rules, Map.of(), null, null);
        assertEquals(2, r.entries().size(), r.table());
        for (KitReport.Entry e : r.entries()) {
            assertEquals(KitReport.Result.SKIPPED, e.result(), r.table());
            assertEquals(
                    "backend unplugged is not available here: " + UnpluggedProvider.CAUSE + " (fix: "
                            + UnpluggedProvider.FIX + ")",
                    e.reason());
        }
        // the entry check accepts a kit test its gate skipped: it said why on every rule
        assertEquals(0, KitSuites.rulesStarted(GatedFixture.class));
        KitSuites.assertRulesRan(GatedFixture.class);
    }

    @Test
    void aGatedBackendThatIsNotOnTheClassPathFails() {
        KitReport r = KitRunner.runRules(
                PlugFixtures.GatedButMissing.class, List.of("required_heap_allocate_free"), Map.of(), null, null);
        KitReport.Entry e = r.entries().getFirst();
        assertEquals(KitReport.Result.FAILED, e.result(), r.table());
        assertTrue(e.reason().contains("'no-such-backend' is not on the class path"), e.reason());
    }

    @Test
    void untestedRulesAreSkippedWithTheirReasonAndTheOthersRunOnThePlugsBackend() {
        KitReport r = KitRunner.runRules(
                PlugFixtures.WithUntested.class,
                List.of(PlugFixtures.UNTESTED_RULE, "required_heap_allocate_free"),
                Map.of(),
                null,
                null);
        assertEquals(2, r.entries().size(), r.table());
        assertEquals("shm", r.backend(), "the plug names the backend");
        assertEquals(2, r.ranks(), "the plug names the ranks");
        for (KitReport.Entry e : r.entries()) {
            if (e.rule().equals(PlugFixtures.UNTESTED_RULE)) {
                assertEquals(KitReport.Result.SKIPPED, e.result(), r.table());
                assertEquals(KitPlug.Untested.PREFIX + "shm: " + PlugFixtures.UNTESTED_WHY, e.reason());
                assertTrue(e.untested());
            } else {
                assertEquals(KitReport.Result.PASSED, e.result(), e.reason() + "\n" + r.table());
            }
        }
    }

    @Test
    void anUntestedRuleTheKitDoesNotHaveFailsTheSuite() {
        KitReport r = KitRunner.runRules(
                PlugFixtures.UnknownUntested.class, List.of("required_heap_allocate_free"), Map.of(), null, null);
        KitReport.Entry e = r.entries().getFirst();
        assertEquals(KitReport.Result.FAILED, e.result(), r.table());
        assertTrue(
                e.reason().contains("marks rules untested that the kit does not have: [required_heap_no_such_rule]"),
                e.reason());
    }

    @Test
    void aReportWithAnUntestedRuleIsAPartialRunNotACertification() {
        List<KitReport.Entry> all = new ArrayList<>();
        for (Class<?> s : KitSuites.defaultRun())
            for (String rule : KitSuites.rules(s))
                all.add(new KitReport.Entry(s.getSimpleName(), rule, KitReport.Result.PASSED, "", Duration.ZERO));
        KitReport clean = new KitReport("x", "1", List.of(), 4, Instant.now(), all, "");
        assertEquals(KitReport.Certification.FULL, clean.certification(), clean.certificationLine());
        int i = all.indexOf(all.stream()
                .filter(e -> e.rule().equals(PlugFixtures.UNTESTED_RULE))
                .findFirst()
                .orElseThrow());
        all.set(
                i,
                new KitReport.Entry(
                        all.get(i).suite(),
                        PlugFixtures.UNTESTED_RULE,
                        KitReport.Result.SKIPPED,
                        KitPlug.Untested.PREFIX + "x: " + PlugFixtures.UNTESTED_WHY,
                        Duration.ZERO));
        KitReport withUntested = new KitReport("x", "1", List.of(), 4, Instant.now(), all, "");
        assertEquals(
                KitReport.Certification.PARTIAL_RUN, withUntested.certification(), withUntested.certificationLine());
        assertTrue(
                withUntested.certificationLine().contains("1 rules untested on this backend"),
                withUntested.certificationLine());
    }

    @Test
    void aPlugRefusesNonsense() {
        assertThrows(IllegalArgumentException.class, () -> KitPlug.backend(" "));
        assertThrows(IllegalArgumentException.class, () -> KitPlug.backend("x").ranks(0));
        assertThrows(
                IllegalArgumentException.class, () -> KitPlug.backend("x").untested(" ", "required_heap_zero_bytes"));
    }
}
