package dev.unicomm.api;

import java.util.Arrays;

/**
 * Elastic mode only: the process of one or more ranks of this communicator died. Every survivor's
 * pending and later calls on the communicator end with it (within the communicator timeout); the
 * communicator is then good only for {@link Communicator#shrink()} (or {@code close()}). Ranks are
 * this communicator's numbering.
 */
public final class RankFailedException extends CommAbortedException {
    private final int[] failedRanks;
    /** Said once, also when a reason is passed on from an earlier rank failure. */
    private static final String SHRINK_HINT = "; call shrink() to go on with the survivors";

    public RankFailedException(int[] failedRanks, String reason) {
        super(
                first(failedRanks),
                reason != null && reason.endsWith(SHRINK_HINT)
                        ? reason
                        : reason
                                + (failedRanks.length > 1 ? " (failed ranks " + Arrays.toString(failedRanks) + ")" : "")
                                + SHRINK_HINT);
        this.failedRanks = failedRanks.clone();
    }

    private static int first(int[] ranks) {
        if (ranks == null || ranks.length == 0)
            throw new IllegalArgumentException("a rank failure names at least one rank");
        return ranks[0];
    }

    /** Every rank known to have failed (this communicator's numbering), ascending. */
    public int[] failedRanks() {
        return failedRanks.clone();
    }
}
