package dev.unicomm.conformance.moe;

import static dev.unicomm.conformance.moe.PortableMoeThreadsTest.shmRanks;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CallMismatchException;
import dev.unicomm.api.ExpertMask;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.moe.reference.MoeConformance;
import dev.unicomm.moe.reference.MoeScenario;
import dev.unicomm.moe.reference.MoeScenario.Routing;
import org.junit.jupiter.api.Test;

/**
 * The expert mask (semantics §7.7) over the portable MoE on 3 shm PEs as threads, no rank killed: the
 * experts are placed over an original job of 4 ranks whose rank 2 is gone, job ranks 0, 1, 3 served by
 * ranks 0, 1, 2. Every result must equal the kit's reference of a plain buffer over the live experts fed
 * the ids with rank 2's entries dropped, and every dispatch must report those drops per token.
 */
class MaskedMoeThreadsTest {
    static final ExpertMask MASK = new ExpertMask(4, new int[] {0, 1, 3});

    static MoeScenario scenario(MoeConfig cfg, Routing routing, long seed) {
        return new MoeScenario(
                "masked-" + routing.name().toLowerCase(),
                cfg,
                3,
                seed,
                routing,
                MoeScenario.unevenTokens(3, cfg.maxTokensPerRank(), seed % 2 == 0));
    }

    @Test
    void normalModeKeepsExpertsInPlaceAndReportsDrops() throws Exception {
        MoeConfig bf16 = new MoeConfig(MoeConfig.Mode.NORMAL, 16, 96, 24, 4, false);
        MoeConfig fp8 = new MoeConfig(MoeConfig.Mode.NORMAL, 16, 256, 24, 4, true);
        shmRanks(3).runOk(comm -> {
            try (MoeBuffer moe = comm.moe(bf16, MASK)) {
                assertEquals(bf16, moe.config(), "the buffer shows the original config");
                new MoeConformance(comm, scenario(bf16, Routing.UNIFORM, 1), MASK).checkNormal(moe, false);
                new MoeConformance(comm, scenario(bf16, Routing.UNUSED_SLOTS, 2), MASK).checkNormal(moe, false);
            }
            try (MoeBuffer moe = comm.moe(fp8, MASK)) {
                new MoeConformance(comm, scenario(fp8, Routing.UNIFORM, 3), MASK).checkNormal(moe, true);
            }
        });
    }

    @Test
    void lowLatencyModeKeepsExpertsInPlaceAndSumsLiveContributions() throws Exception {
        MoeConfig cfg = new MoeConfig(MoeConfig.Mode.LOW_LATENCY, 8, 256, 6, 3, true);
        shmRanks(3).runOk(comm -> {
            try (MoeBuffer moe = comm.moe(cfg, MASK)) {
                new MoeConformance(comm, scenario(cfg, Routing.UNIFORM, 11), MASK).checkLowLatency(moe, false);
                new MoeConformance(comm, scenario(cfg, Routing.UNUSED_SLOTS, 12), MASK).checkLowLatency(moe, true);
            }
        });
    }

    @Test
    void masksThatDoNotFitOrDisagreeAreRejectedOnEveryRank() throws Exception {
        MoeConfig cfg = new MoeConfig(MoeConfig.Mode.NORMAL, 16, 96, 24, 4, false);
        shmRanks(3).runOk(comm -> {
            IllegalArgumentException e =
                    assertThrows(IllegalArgumentException.class, () -> comm.moe(cfg, ExpertMask.all(4)));
            assertTrue(e.getMessage().contains("names 4 active ranks but this communicator has 3"), e.getMessage());
            e = assertThrows(
                    IllegalArgumentException.class,
                    () -> comm.moe(cfg.withTopk(4), new ExpertMask(3, new int[] {0, 1, 2})));
            assertTrue(e.getMessage().contains("must be divisible by the mask's job size (3)"), e.getMessage());
            // Every rank must pass the same mask: a rank with another one fails every rank's open.
            ExpertMask mine = comm.rank() == 0 ? new ExpertMask(4, new int[] {0, 2, 3}) : MASK;
            CallMismatchException m = assertThrows(CallMismatchException.class, () -> comm.moe(cfg, mine));
            assertTrue(m.getMessage().contains("moe buffer open"), m.getMessage());
            try (MoeBuffer ok = comm.moe(cfg, MASK)) {
                assertEquals(cfg, ok.config());
            }
        });
    }
}
