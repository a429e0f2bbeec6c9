package dev.unicomm.conformance.selftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
 * A rule whose check needs more ranks than the run has (a strided split of 2 ranks has one member) is not
 * applicable, not passed: a run that is otherwise clean certifies {@code REQUIRED_AT_THIS_SIZE_ONLY}, never FULL.
 */
class NotApplicableLevelTest {
    static final String RULE = "optional_teams_team_barrier_and_rma";

    @Test
    void aStridedSplitAtTwoRanksIsNotApplicableAndCapsTheLevel() {
        KitReport run = KitRunner.runRules(PlugFixtures.TeamsAtTwo.class, List.of(RULE), Map.of(), null, null);
        KitReport.Entry skipped = run.entries().getFirst();
        assertEquals(KitReport.Result.SKIPPED, skipped.result(), run.table());
        assertTrue(skipped.needsMoreRanks(), skipped.reason());
        assertTrue(skipped.reason().contains("needs 3"), skipped.reason());

        // the same entry in an otherwise clean run of every rule of the default run
        List<KitReport.Entry> all = new ArrayList<>();
        for (Class<?> s : KitSuites.defaultRun())
            for (String rule : KitSuites.rules(s))
                all.add(
                        rule.equals(RULE)
                                ? skipped
                                : new KitReport.Entry(
                                        s.getSimpleName(), rule, KitReport.Result.PASSED, "", Duration.ZERO));
        KitReport full = new KitReport("shm", "1", List.of(), 2, Instant.now(), all, "");
        assertEquals(
                KitReport.Certification.REQUIRED_AT_THIS_SIZE_ONLY, full.certification(), full.certificationLine());
        assertTrue(full.certificationLine().contains(RULE), full.certificationLine());
    }
}
