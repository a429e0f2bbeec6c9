package dev.unicomm.collectives.moe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.collectives.MoeAlgorithm;
import dev.unicomm.testsupport.threads.ThreadWorld;
import org.junit.jupiter.api.Test;

/**
 * Ranks that chose different normal-mode algorithms (they would allocate different symmetric memory)
 * fail together at open, in one line, instead of hanging in the allocation; a bad setting on one rank
 * fails every rank the same way.
 */
class AlgorithmAgreementTest {
    @Test
    void differentChoicesFailOnEveryRank() {
        try (ThreadWorld w = ThreadWorld.create(4, true, 4 << 20)) {
            var outcomes = w.job()
                    .hosts(0, 0, 1, 1)
                    .run(comm -> PortableMoeProvider.agreed(
                            comm, comm.rank() == 3 ? MoeAlgorithm.FLAT : MoeAlgorithm.HIERARCHICAL, null));
            for (var o : outcomes) {
                assertTrue(o.failed(), "rank " + o.rank() + " went on with a choice the others do not share");
                assertTrue(
                        o.error().getMessage().contains("different normal-mode MoE algorithms"),
                        o.error().getMessage());
            }
        }
    }

    @Test
    void aBadSettingOnOneRankFailsEveryRank() {
        try (ThreadWorld w = ThreadWorld.create(4, true, 4 << 20)) {
            var outcomes = w.job()
                    .hosts(0, 0, 1, 1)
                    .run(comm -> comm.rank() == 1
                            ? PortableMoeProvider.agreed(
                                    comm,
                                    null,
                                    new IllegalArgumentException(
                                            "unicomm.moe.algorithm (UNICOMM_MOE_ALGORITHM) must be flat, hierarchical or auto, got 'x'"))
                            : PortableMoeProvider.agreed(comm, MoeAlgorithm.HIERARCHICAL, null));
            for (var o : outcomes) {
                assertTrue(o.failed(), "rank " + o.rank() + " went on");
                assertTrue(
                        o.error().getMessage().contains("flat, hierarchical or auto"),
                        o.error().getMessage());
            }
        }
    }

    @Test
    void theSameChoiceIsReturned() {
        try (ThreadWorld w = ThreadWorld.create(4, true, 4 << 20)) {
            w.job()
                    .hosts(0, 0, 1, 1)
                    .runOk(comm -> assertEquals(
                            MoeAlgorithm.HIERARCHICAL,
                            PortableMoeProvider.agreed(comm, MoeAlgorithm.HIERARCHICAL, null)));
        }
    }
}
