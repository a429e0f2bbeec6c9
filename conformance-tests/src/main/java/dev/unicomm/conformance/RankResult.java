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
 */
public record RankResult(int rank, Outcome outcome, String message, String value, Duration time) {
    @Override public String toString() {
        return "rank " + rank + " " + outcome + (message.isEmpty() ? "" : ": " + message);
    }
}
