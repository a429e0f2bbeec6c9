package dev.unicomm.conformance;

import java.time.Duration;

/**
 * One rank's result for one rule.
 *
 * @param rank    the rank
 * @param outcome how it finished
 * @param message the failure or skip reason ("" when passed)
 * @param value   what the body {@linkplain Pe#report reported} for cross-rank checks in the parent ("" if nothing)
 * @param time    how long the body ran on that rank
 * @param algorithms the rule's collective and MoE calls on that rank by algorithm ({@code "allreduce/two_level=4, moe.dispatch/hierarchical=1"},
 *                {@link dev.unicomm.api.Communicator#algorithmCounts()}; "" if none or unknown)
 * @param topology which ranks share a host in the job, as that rank's communicator sees it ("" if unknown)
 */
public record RankResult(
        int rank, Outcome outcome, String message, String value, Duration time, String algorithms, String topology) {
    /** A result without algorithm counts or topology. */
    public RankResult(int rank, Outcome outcome, String message, String value, Duration time) {
        this(rank, outcome, message, value, time, "", "");
    }

    @Override
    public String toString() {
        return "rank " + rank + " " + outcome + (message.isEmpty() ? "" : ": " + message);
    }
}
