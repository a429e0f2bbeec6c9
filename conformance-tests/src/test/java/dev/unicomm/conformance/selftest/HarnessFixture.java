package dev.unicomm.conformance.selftest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.unicomm.api.Capability;
import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.KitSuite;
import dev.unicomm.conformance.NotApplicable;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Rules that exercise the harness itself (no communicator): passing, failing on one rank, hanging,
 * dying, skipping. Run by {@link HarnessTest} through the kit runner; not a test on its own.
 */
public class HarnessFixture extends KitSuite {
    static final KitPlug PLUG = KitPlug.backend("shm").ranks(2);

    @Override
    protected boolean connectAtStart() {
        return false;
    }

    @Override
    protected Duration ruleTimeout() {
        return Duration.ofSeconds(4);
    }

    @Test
    void required_harness_passes() {
        var results = spmd(pe -> pe.report(pe.rank() * 10));
        assertEquals(List.of("0", "10"), values(results));
    }

    @Test
    void required_harness_fails_on_rank1() {
        spmd(pe -> assertEquals(0, pe.rank(), "deliberate mismatch"));
    }

    @Test
    void required_harness_rank0_hangs() {
        spmd(pe -> {
            if (pe.rank() == 0) Thread.sleep(600_000);
        });
    }

    @Test
    void required_harness_runs_after_a_hang() {
        spmd(pe -> pe.report("ok"));
    }

    @Test
    void required_harness_rank1_dies() {
        spmd(pe -> {
            if (pe.rank() == 1) Runtime.getRuntime().halt(7);
        });
    }

    @Test
    void required_harness_skips_by_assumption() {
        spmd(pe -> Assumptions.assumeTrue(false, "deliberately skipped on rank " + pe.rank()));
    }

    @Test
    void required_harness_not_applicable() {
        spmd(pe -> NotApplicable.unlessRanks(pe.size(), 99, "deliberately needs 99 ranks"));
    }

    @Test
    void optional_harness_skips_by_capability() {
        spmd(Capability.NATIVE_MOE, pe -> {
            throw new AssertionError("must not run: shm has no NATIVE_MOE");
        });
    }

    @Test
    void optional_harness_misnamed() {
        spmd(pe -> {});
    }

    @Test
    void required_harness_victim_killed() {
        spmdKilling(1, pe -> {
            if (pe.rank() == 1) dev.unicomm.conformance.Faults.killSelfAfter(Duration.ZERO);
            if (pe.rank() == 1) Thread.sleep(600_000);
        });
    }

    @Test
    void required_harness_victim_survives() {
        spmdKilling(1, pe -> {});
    }
}
