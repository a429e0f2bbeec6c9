package dev.unicomm.backend.ucx.kit;

import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The checks of {@link UcxKitAlgorithms} pass on the lines a run of each kind writes and fail on the other kind's. */
class UcxKitAlgorithmsTest {
    /** Lines as the 2 x 2 bed report has them (results/kit-reports/ucx/kit-ucx-2hosts-x2.txt). */
    static final Map<String, String> BED = Map.of(
            "required_moe_normal_uniform_routing",
                    "allreduce/inline=1, moe.cachedDispatch/hierarchical=1, moe.combine/hierarchical=2, moe.dispatch/hierarchical=1",
            "required_moe_low_latency_uniform_routing",
                    "moe.lowLatencyCombine/direct=5, moe.lowLatencyDispatch/direct=9",
            "required_collectives_allgather", "allgather/inline=4, allgather/two_level=2",
            "required_collectives_allreduce_fp32", "allreduce/inline=16, allreduce/two_level=8",
            "required_collectives_reduce_scatter",
                    "reduceScatter/inline=20, reduceScatter/rma=8, reduceScatter/two_level=12");
    /** Lines as the one-host report has them (kit-ucx-4ranks.txt). */
    static final Map<String, String> ONE_HOST = Map.of(
            "required_moe_normal_uniform_routing", "moe.cachedDispatch/flat=1, moe.combine/flat=2, moe.dispatch/flat=1",
            "required_collectives_allgather", "allgather/inline=4, allgather/rma=2",
            "required_collectives_allreduce_fp32", "allreduce/inline=16, allreduce/rma=8",
            "required_collectives_reduce_scatter", "reduceScatter/inline=20, reduceScatter/rma=20");

    @Test
    void eachRunPassesItsOwnCheck() {
        UcxKitAlgorithms.assertTwoLevel(BED);
        UcxKitAlgorithms.assertFlat(ONE_HOST);
    }

    @Test
    void flatRunsFailTheBedCheckAndTwoLevelRunsTheOneHostCheck() {
        assertThrows(AssertionError.class, () -> UcxKitAlgorithms.assertTwoLevel(ONE_HOST));
        assertThrows(AssertionError.class, () -> UcxKitAlgorithms.assertFlat(BED));
        // a rule that counted nothing (a backend that does not say) fails too
        assertThrows(
                AssertionError.class,
                () -> UcxKitAlgorithms.assertTwoLevel(Map.of("required_collectives_allgather", "")));
    }
}
