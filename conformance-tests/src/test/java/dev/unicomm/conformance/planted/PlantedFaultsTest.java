package dev.unicomm.conformance.planted;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.conformance.KitReport;
import dev.unicomm.conformance.KitRunner;
import dev.unicomm.conformance.KitSettings;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Each planted fault of an asynchronous put engine fails the rules of the clause it breaks in every one of
 * {@value #RUNS} runs (the engine delivers only at completion points, so a rule that catches it cannot
 * depend on timing), while a rule that the same fault escapes, named next to it, still passes: the fault is
 * the one planted, not a broken fixture.
 */
class PlantedFaultsTest {
    static final int RUNS = 10;

    /** Runs {@code mustFail} and {@code mustPass} {@value #RUNS} times each on {@code fixture}'s backend and checks both. */
    static KitReport assertCaughtEveryTime(Class<?> fixture, List<String> mustFail, List<String> mustPass) {
        List<String> rules = new ArrayList<>(mustFail);
        rules.addAll(mustPass);
        KitReport r =
                KitRunner.runRules(fixture, rules, Map.of(KitSettings.REPEAT, Integer.toString(RUNS)), null, null);
        assertEquals(rules.size(), r.entries().size(), r.table());
        for (KitReport.Entry e : r.entries()) {
            if (mustFail.contains(e.rule())) {
                assertEquals(
                        KitReport.Result.FAILED,
                        e.result(),
                        e.rule() + " must fail on " + r.backend() + "\n" + r.table());
                assertTrue(
                        e.reason()
                                .lines()
                                .findFirst()
                                .orElse("")
                                .contains("[failed in " + RUNS + " of " + RUNS + " runs]"),
                        e.rule() + " must fail in every run: " + e.reason());
            } else {
                assertEquals(
                        KitReport.Result.PASSED,
                        e.result(),
                        e.rule() + " must pass on " + r.backend() + ": " + e.reason() + "\n" + r.table());
            }
        }
        System.out.println(r.table());
        return r;
    }

    @Test
    void perThreadQueuesFailTheOtherThreadRules() {
        assertCaughtEveryTime(
                PlantedFixtures.PerThreadQueuesRma.class,
                List.of(
                        "required_rma_quiet_completes_puts_of_other_threads",
                        "required_rma_barrier_completes_puts_of_other_threads"),
                List.of("required_rma_quiet_completes_puts_seen_by_target"));
    }

    @Test
    void subTeamBarrierThatSkipsRmaFailsTheSubTeamRules() {
        assertCaughtEveryTime(
                PlantedFixtures.SubTeamBarrierTeams.class,
                List.of(
                        "optional_teams_sub_team_barrier_completes_puts",
                        "optional_teams_team_barrier_completes_puts_to_non_members"),
                List.of());
        assertCaughtEveryTime(
                PlantedFixtures.SubTeamBarrierRma.class,
                List.of(),
                List.of("required_rma_world_team_barrier_completes_puts"));
    }

    @Test
    void quietThatOnlyOrdersBehindADrainingGetFailsTheTargetSideRule() {
        KitReport r = assertCaughtEveryTime(
                PlantedFixtures.QuietOrdersGetDrainsRma.class,
                List.of("required_rma_quiet_completes_puts_seen_by_target"),
                List.of("required_rma_quiet_completes_puts", "required_rma_put_get_self"));
        String why = r.entries().stream()
                .filter(e -> e.rule().equals("required_rma_quiet_completes_puts_seen_by_target"))
                .findFirst()
                .orElseThrow()
                .reason();
        assertTrue(why.contains("read locally once its quiet had returned"), why);
    }

    @Test
    void quietThatDrainsOneTargetFailsTheEveryPeRule() {
        assertCaughtEveryTime(
                PlantedFixtures.QuietDrainsLastTargetRma.class,
                List.of("required_rma_quiet_completes_puts_to_every_pe"),
                List.of("required_rma_quiet_completes_puts_seen_by_target"));
    }

    @Test
    void atomicsOvertakingFencedPutsFailTheFenceAtomicRule() {
        assertCaughtEveryTime(
                PlantedFixtures.AtomicsOvertakePutsAtomics.class,
                List.of("optional_atomics_fence_orders_put_before_atomic"),
                List.of());
        assertCaughtEveryTime(
                PlantedFixtures.AtomicsOvertakePutsRma.class, List.of(), List.of("required_rma_fence_orders_puts"));
    }

    @Test
    void deferredAtomicUpdatesFailTheQuietAtomicsRule() {
        assertCaughtEveryTime(
                PlantedFixtures.DeferredAtomicUpdatesAtomics.class,
                List.of("optional_atomics_quiet_completes_atomic_updates"),
                List.of("optional_atomics_compare_swap_semantics"));
    }

    @Test
    void cachedReadsFailTheFreshReadRules() {
        assertCaughtEveryTime(
                PlantedFixtures.CachedReadsRma.class,
                List.of("required_rma_get_sees_updates_after_barrier"),
                List.of("required_rma_get_all_sizes"));
        assertCaughtEveryTime(
                PlantedFixtures.CachedReadsAtomics.class,
                List.of("optional_atomics_fetch_sees_updates_after_barrier"),
                List.of());
    }

    @Test
    void signalAddsCountedAtTheOriginFailTheSharedWordRule() {
        assertCaughtEveryTime(
                PlantedFixtures.SignalCountedAtOriginAtomics.class,
                List.of("optional_atomics_mixed_with_signal_add_on_one_word"),
                List.of("optional_atomics_fetch_add_contention"));
    }

    @Test
    void closeThatDoesNotCompleteFailsTheCloseRuleEveryTime() {
        assertCaughtEveryTime(
                PlantedFixtures.ReuseBeforeDrainHeap.class,
                List.of("required_heap_close_completes_puts"),
                List.of("required_heap_reuse_after_free"));
    }

    @Test
    void dataQueuedBehindItsSignalFailsTheSignalRuleEveryTime() {
        assertCaughtEveryTime(
                PlantedFixtures.SignalBeforeDataSignal.class,
                List.of("optional_signal_data_visible_before_signal"),
                List.of());
    }
}
