package dev.unicomm.backend.ucx.kit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What the ucx kit runs must show about the algorithms their rules ran ({@code KitSuites.algorithms}: each rule's
 * collective and MoE calls by algorithm, as its report prints them): two levels across hosts, flat on one host.
 * Checks the rules that ran in this JVM (all of them when the whole kit test runs, as in CI).
 */
final class UcxKitAlgorithms {
    private UcxKitAlgorithms() {}

    /** The normal-mode MoE rules: their dispatch and combine calls. */
    static final List<String> MOE_NORMAL = List.of(
            "required_moe_normal_uniform_routing",
            "required_moe_normal_tokens_on_one_rank",
            "required_moe_normal_experts_without_tokens",
            "required_moe_normal_unused_slots_and_uneven_tokens");

    static final List<String> MOE_LOW_LATENCY =
            List.of("required_moe_low_latency_uniform_routing", "required_moe_low_latency_tokens_on_one_rank");

    /** 2 hosts x 2 ranks with unicomm.moe.algorithm=auto: the normal MoE hierarchical, the world's allgather and reductions in two levels. */
    static void assertTwoLevel(Map<String, String> ran) {
        for (String rule : MOE_NORMAL) {
            check(ran, rule, "moe.dispatch/hierarchical", "moe.combine/hierarchical");
            absent(ran, rule, "moe.dispatch/flat", "moe.combine/flat");
        }
        check(ran, "required_moe_normal_fp8", "moe.dispatch/hierarchical");
        for (String rule : MOE_LOW_LATENCY)
            check(ran, rule, "moe.lowLatencyDispatch/direct", "moe.lowLatencyCombine/direct");
        check(ran, "required_collectives_allgather", "allgather/two_level");
        check(ran, "required_collectives_allreduce_fp32", "allreduce/two_level");
        check(ran, "required_collectives_allreduce_int64", "allreduce/two_level");
        check(ran, "required_collectives_reduce_scatter", "reduceScatter/two_level");
    }

    /** 4 ranks on one host: nothing in two levels, the normal MoE flat. */
    static void assertFlat(Map<String, String> ran) {
        for (String rule : MOE_NORMAL) check(ran, rule, "moe.dispatch/flat", "moe.combine/flat");
        for (var e : ran.entrySet()) {
            assertFalse(
                    e.getValue().contains("/two_level") || e.getValue().contains("/hierarchical"),
                    e.getKey() + " ran a two-level algorithm on one host: " + e.getValue());
        }
        check(ran, "required_collectives_allgather", "allgather/rma");
        check(ran, "required_collectives_allreduce_fp32", "allreduce/rma");
    }

    /** Where {@code rule} ran, its line names every one of {@code keys} with a count. */
    private static void check(Map<String, String> ran, String rule, String... keys) {
        String line = ran.get(rule);
        if (line == null) return; // not run in this JVM (a selection of suites)
        for (String k : keys)
            assertTrue(line.contains(k + "="), rule + " did not run " + k + "; it ran: " + describe(line) + all(ran));
    }

    private static void absent(Map<String, String> ran, String rule, String... keys) {
        String line = ran.get(rule);
        if (line == null) return;
        for (String k : keys) assertFalse(line.contains(k + "="), rule + " ran " + k + ": " + line);
    }

    private static String describe(String line) {
        return line.isEmpty() ? "(no collective or MoE call counted)" : line;
    }

    private static String all(Map<String, String> ran) {
        return ran.entrySet().stream()
                .sorted(Map.Entry.comparingByKey())
                .map(e -> "\n  " + e.getKey() + ": " + e.getValue())
                .collect(Collectors.joining());
    }
}
