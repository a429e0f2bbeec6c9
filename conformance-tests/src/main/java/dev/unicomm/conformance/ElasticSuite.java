package dev.unicomm.conformance;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.Capability;
import dev.unicomm.api.CommConfig;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.ExpertMask;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.RankFailedException;
import dev.unicomm.api.ReduceOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Unicomm;
import dev.unicomm.api.UnsupportedCapabilityException;
import dev.unicomm.moe.reference.MoeConformance;
import dev.unicomm.moe.reference.MoeScenario.Routing;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/**
 * Elastic mode (capability {@code ELASTIC}, semantics §7.6–7.7): the last rank is SIGKILLed inside a
 * loop on a communicator opened with {@code unicomm.elastic=true} (on a fresh store); every survivor
 * must get a {@link RankFailedException} naming it within the timeout, shrink to the others, and go
 * on there with correct results. Backends without {@code ELASTIC} skip every rule, saying so.
 */
public abstract class ElasticSuite extends KitSuite {

    /** A fresh job's configuration with elastic mode on. */
    static CommConfig elastic(CommConfig c) {
        Map<String, String> props = new HashMap<>(c.properties());
        props.put("unicomm.elastic", "true");
        return new CommConfig(
                c.backend(),
                c.rank(),
                c.worldSize(),
                c.localRank(),
                c.storeHost(),
                c.storePort(),
                c.token(),
                c.tls(),
                c.timeout(),
                c.heapSize(),
                props);
    }

    /**
     * Everyone opens an elastic communicator and runs {@code step} on it in a loop; the last rank
     * SIGKILLs itself {@value FaultInjectionSuite#KILL_AFTER_MS} ms in. Survivors: the loop must end in a
     * {@link RankFailedException} naming it within timeout + 5 s; returns the shrunken communicator.
     */
    private static Communicator killLastAndShrink(Pe pe, Step step) throws Exception {
        Communicator c = Unicomm.connect(elastic(pe.freshConfig()));
        int victim = c.size() - 1;
        c.barrier();
        if (c.rank() == victim) {
            FaultInjectionSuite.killSelfAfter(pe, FaultInjectionSuite.KILL_AFTER_MS);
            while (true) step.run(c);
        }
        long t0 = System.nanoTime();
        long end = t0 + pe.timeout().multipliedBy(2).toNanos();
        try {
            while (System.nanoTime() < end) step.run(c);
            throw new AssertionFailedError(
                    "the loop ran for twice the timeout without a RankFailedException for rank " + victim);
        } catch (RankFailedException e) {
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertArrayEquals(
                    new int[] {victim}, e.failedRanks(), "the exception must name the killed rank: " + e.getMessage());
            assertTrue(ms <= pe.timeout().plusSeconds(5).toMillis(), "noticed after " + ms + " ms");
        }
        long s0 = System.nanoTime();
        Communicator s = c.shrink();
        pe.report(Long.toString((System.nanoTime() - s0) / 1_000_000));
        assertEquals(c.size() - 1, s.size(), "survivors");
        assertEquals(c.rank(), s.rank(), "survivors keep their order (the last rank died)");
        assertArrayEquals(IntStream.range(0, victim).toArray(), s.jobRanks(), "job ranks of the shrunken communicator");
        long c0 = System.nanoTime();
        c.close(); // released by shrink: must neither hang nor throw
        assertTrue(
                System.nanoTime() - c0 < Duration.ofSeconds(5).toNanos(), "closing the old communicator took too long");
        return s;
    }

    @FunctionalInterface
    private interface Step {
        void run(Communicator c) throws Exception;
    }

    /**
     * Verifies §7.6: in elastic mode a dead rank is named by RankFailedException on every survivor, and shrink() gives a working communicator over the others / if it fails, look at the store's elastic mode (rank failures by epoch) and the backend's dead-peer detection.
     * <p>Killed in a barrier loop; after the shrink an allreduce of the job ranks must add up to the survivors'.
     */
    @Verifies("7.6")
    @Test
    void optional_elastic_rank_failure_is_named_and_shrink_excludes_it() {
        assumeCapability(Capability.ELASTIC);
        assumeRanks(2);
        spmdKilling(ranks() - 1, pe -> {
            Communicator s = killLastAndShrink(pe, Communicator::barrier);
            try (SymmetricBuffer src = s.heap().allocate(8);
                    SymmetricBuffer dst = s.heap().allocate(8)) {
                s.rma().put(src, 0, longBytes(s.jobRanks()[s.rank()]), s.rank());
                s.collectives().allreduce(s.world(), dst, src, 1, DType.INT64, ReduceOp.SUM);
                java.lang.foreign.MemorySegment out =
                        java.lang.foreign.Arena.ofAuto().allocate(8);
                s.rma().get(out, dst, 0, s.rank());
                assertEquals(
                        (long) IntStream.of(s.jobRanks()).sum(),
                        out.get(ValueLayout.JAVA_LONG, 0),
                        "allreduce on the survivors");
            }
            s.close();
        });
    }

    /**
     * Verifies §7.6: after a shrink, a symmetric buffer and a team made on the released communicator close quietly
     * (a try-with-resources that spans the shrink must not throw), and the shrunk heap allocates again
     * / if it fails, look at the validating layer's close of buffers and teams whose communicator was released.
     */
    @Verifies("7.6")
    @Test
    void optional_elastic_buffer_and_team_of_the_released_communicator_close_quietly() {
        assumeCapability(Capability.ELASTIC);
        assumeRanks(2);
        spmdKilling(ranks() - 1, pe -> {
            SymmetricBuffer[] buf = new SymmetricBuffer[1];
            dev.unicomm.api.Team[] team = new dev.unicomm.api.Team[1];
            Communicator s = killLastAndShrink(pe, c -> {
                if (buf[0] == null) {
                    buf[0] = c.heap().allocate(1 << 16);
                    team[0] = c.world().split(0, 1, c.size());
                }
                c.barrier();
            });
            buf[0].close();
            team[0].close();
            try (SymmetricBuffer again = s.heap().allocate(1 << 16)) {
                assertTrue(again.isOpen());
                s.barrier();
            }
            s.close();
        });
    }

    /**
     * Verifies §7.7: after a rank dies inside MoE dispatch/combine and the survivors shrink, a MoE buffer on the shrunken communicator (experts spread over the survivors) matches the reference / if it fails, look at shrink() releasing the old MoE buffer and the backend's reopen.
     */
    @Verifies("7.7")
    @Test
    void optional_elastic_moe_after_shrink_matches_the_reference() {
        assumeCapability(Capability.ELASTIC);
        assumeRanks(2);
        spmdKilling(ranks() - 1, pe -> {
            int n = pe.size();
            // Experts divisible by the job's size and by the survivors'.
            MoeConfig cfg =
                    new MoeConfig(MoeConfig.Mode.NORMAL, 2 * n * (n - 1), 96, 24, Math.min(4, 2 * n * (n - 1)), false);
            MoeBuffer[] moe = new MoeBuffer[1];
            Communicator s = killLastAndShrink(pe, c -> {
                if (moe[0] == null) moe[0] = MoeSuite.open(c, cfg);
                new MoeConformance(c, MoeSuite.scenario(c, cfg, Routing.UNIFORM, 5, false)).checkNormal(moe[0], false);
            });
            try (MoeBuffer m = MoeSuite.open(s, cfg)) {
                new MoeConformance(s, MoeSuite.scenario(s, cfg, Routing.UNIFORM, 7, false)).checkNormal(m, false);
            }
            s.close();
        });
    }

    /**
     * Verifies §7.6: a MoE buffer made on a communicator that a shrink released closes quietly (twice too), is
     * then closed for use, and the shrunken communicator opens and runs one of the same config
     * / if it fails, look at MoeBuffer.close() after the communicator went (its symmetric memory went with it: close frees the rest).
     * <p>Issue #45 item 3: a try-with-resources spanning the shrink threw IllegalStateException at its end.
     */
    @Verifies("7.6")
    @Test
    void optional_elastic_moe_buffer_of_the_released_communicator_closes_quietly() {
        assumeCapability(Capability.ELASTIC);
        assumeRanks(2);
        spmdKilling(ranks() - 1, pe -> {
            int n = pe.size();
            MoeConfig cfg =
                    new MoeConfig(MoeConfig.Mode.NORMAL, 2 * n * (n - 1), 96, 24, Math.min(4, 2 * n * (n - 1)), false);
            MoeBuffer[] moe = new MoeBuffer[1];
            Communicator s = killLastAndShrink(pe, c -> {
                if (moe[0] == null) moe[0] = MoeSuite.open(c, cfg);
                c.barrier();
            });
            moe[0].close();
            moe[0].close();
            IllegalStateException e =
                    assertThrows(IllegalStateException.class, moe[0]::footprintBytes, "a closed MoE buffer");
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
            try (MoeBuffer m = MoeSuite.open(s, cfg)) {
                new MoeConformance(s, MoeSuite.scenario(s, cfg, Routing.UNIFORM, 3, false)).checkNormal(m, false);
            }
            s.close();
        });
    }

    /**
     * Verifies §7.7: after a rank dies and the survivors shrink, a MoE buffer opened with an expert mask keeps every expert where the original job placed it, drops and reports per token the entries of the dead rank's experts, and sums only live contributions, matching the reference / if it fails, look at the validating layer's mask translation (Communicator.moe(config, mask)) and the droppedPerToken reports.
     * <p>Before the kill the loop runs checked MoE on an all-active mask (nothing dropped); after the
     * shrink, normal (dispatch, combine, cached dispatch) and low-latency MoE run with the original
     * expert count and the mask of the survivors.
     */
    @Verifies("7.7")
    @Test
    void optional_elastic_moe_mask_keeps_experts_in_place() {
        assumeCapability(Capability.ELASTIC);
        assumeRanks(2);
        spmdKilling(ranks() - 1, pe -> {
            int n = pe.size();
            MoeConfig cfg = new MoeConfig(MoeConfig.Mode.NORMAL, 4 * n, 96, 24, 4, false);
            MoeConfig ll = new MoeConfig(MoeConfig.Mode.LOW_LATENCY, 2 * n, 256, 6, Math.min(3, 2 * (n - 1)), false);
            MoeBuffer[] moe = new MoeBuffer[1];
            Communicator s = killLastAndShrink(pe, c -> {
                ExpertMask all = ExpertMask.of(c, n);
                if (moe[0] == null) moe[0] = openMasked(c, cfg, all);
                new MoeConformance(c, MoeSuite.scenario(c, cfg, Routing.UNIFORM, 5, false), all)
                        .checkNormal(moe[0], false);
            });
            ExpertMask survivors = ExpertMask.of(s, n);
            try (MoeBuffer m = openMasked(s, cfg, survivors)) {
                assertEquals(cfg, m.config(), "the masked buffer keeps the original expert count");
                new MoeConformance(s, MoeSuite.scenario(s, cfg, Routing.UNIFORM, 7, false), survivors)
                        .checkNormal(m, false);
            }
            try (MoeBuffer m = openMasked(s, ll, survivors)) {
                new MoeConformance(s, MoeSuite.scenario(s, ll, Routing.UNIFORM, 9, false), survivors)
                        .checkLowLatency(m, false);
            }
            s.close();
        });
    }

    /** A masked MoE buffer; a backend without any MoE fails the rule (as MoeSuite's required rules do). */
    private static MoeBuffer openMasked(Communicator c, MoeConfig cfg, ExpertMask mask) {
        try {
            return c.moe(cfg, mask);
        } catch (UnsupportedCapabilityException e) {
            throw new AssertionFailedError(
                    "no MoE implementation for backend '" + c.backend().name() + "': " + e.getMessage(), e);
        }
    }

    private static java.lang.foreign.MemorySegment longBytes(long v) {
        java.lang.foreign.MemorySegment m = java.lang.foreign.Arena.ofAuto().allocate(8);
        m.set(ValueLayout.JAVA_LONG, 0, v);
        return m;
    }
}
