package dev.unicomm.conformance.moe;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.moe.reference.MoeConformance;
import dev.unicomm.moe.reference.MoeScenario;
import dev.unicomm.moe.reference.MoeScenario.Routing;
import dev.unicomm.spi.BackendRegistry;
import dev.unicomm.testsupport.ThreadJob;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The portable MoE (module collectives) on real shm PEs as threads of this JVM, against the reference. */
class PortableMoeThreadsTest {
    static final long HEAP = 64L << 20;

    /** {@code ranks} shm PEs as threads (the backend chosen through the registry, as connect does), 30 s waits. */
    static ThreadJob shmRanks(int ranks) {
        return ThreadJob.of(BackendRegistry.load().select("shm"), ranks)
                .heapSize(HEAP)
                .timeout(Duration.ofSeconds(30));
    }

    static MoeScenario scenario(MoeConfig cfg, int ranks, Routing routing, long seed) {
        return new MoeScenario(
                routing.name().toLowerCase(),
                cfg,
                ranks,
                seed,
                routing,
                MoeScenario.unevenTokens(ranks, cfg.maxTokensPerRank(), seed % 2 == 0));
    }

    @Test
    void normalModeMatchesTheReferenceOnEveryRouting() throws Exception {
        MoeConfig bf16 = new MoeConfig(MoeConfig.Mode.NORMAL, 16, 96, 24, 4, false); // hidden not a multiple of 128
        MoeConfig fp8 = new MoeConfig(MoeConfig.Mode.NORMAL, 16, 256, 24, 4, true);
        shmRanks(4).runOk(comm -> {
            long seed = 1;
            for (Routing routing : Routing.values()) {
                try (MoeBuffer moe = comm.moe(bf16)) {
                    assertEquals(bf16.sizeHint(4) + bf16.outputBytes(), moe.footprintBytes());
                    new MoeConformance(comm, scenario(bf16, 4, routing, seed++)).checkNormal(moe, false);
                }
            }
            try (MoeBuffer moe = comm.moe(fp8)) {
                new MoeConformance(comm, scenario(fp8, 4, Routing.UNUSED_SLOTS, 7)).checkNormal(moe, true);
                new MoeConformance(comm, scenario(fp8, 4, Routing.UNIFORM, 8)).checkNormal(moe, false);
            }
        });
    }

    @Test
    void normalModeWithMoreRanksThanRoutedRowsPerRankHoldsItsCounts() throws Exception {
        // One token of top-1 per rank: the R published row counts (8R bytes) outgrow 12*T*K.
        MoeConfig tiny = new MoeConfig(MoeConfig.Mode.NORMAL, 8, 16, 1, 1, false);
        shmRanks(4).runOk(comm -> {
            try (MoeBuffer moe = comm.moe(tiny)) {
                assertEquals(tiny.sizeHint(4) + tiny.outputBytes(), moe.footprintBytes());
                long seed = 31;
                for (Routing routing : Routing.values())
                    new MoeConformance(comm, scenario(tiny, 4, routing, seed++)).checkNormal(moe, false);
            }
        });
    }

    @Test
    void lowLatencyModeMatchesTheReferenceAndKeepsTwoGenerations() throws Exception {
        MoeConfig cfg = new MoeConfig(MoeConfig.Mode.LOW_LATENCY, 8, 256, 6, 3, true);
        shmRanks(2).runOk(comm -> {
            try (MoeBuffer moe = comm.moe(cfg)) {
                assertEquals(cfg.sizeHint(2) + cfg.outputBytes(), moe.footprintBytes());
                long seed = 11;
                for (Routing routing : Routing.values())
                    new MoeConformance(comm, scenario(cfg, 2, routing, seed++)).checkLowLatency(moe, false);
                new MoeConformance(comm, scenario(cfg, 2, Routing.UNIFORM, 21)).checkLowLatency(moe, true);
            }
        });
    }
}
