package dev.unicomm.api;

import java.util.Arrays;

/**
 * Which ranks of the original job still serve their experts (Mooncake EP's active-rank mask; see
 * {@code docs/spec/semantics.md} §7.7). Experts stay where the original job placed them: with
 * {@code L = numExperts / jobSize}, expert {@code e} lives on job rank {@code e / L}. A buffer opened
 * with {@link Communicator#moe(MoeConfig, ExpertMask)} drops every top-k entry that names an expert
 * of an inactive rank, reports the drops per token, and sums only live contributions.
 *
 * @param jobSize        ranks of the original job (the one the experts were placed over), {@code >= 1}
 * @param activeJobRanks job ranks still alive, strictly increasing, in {@code [0, jobSize)}, not empty;
 *                       active job rank {@code activeJobRanks[i]} is served by communicator rank {@code i}
 */
public record ExpertMask(int jobSize, int[] activeJobRanks) {

    public ExpertMask {
        if (jobSize < 1) throw new IllegalArgumentException("jobSize must be >= 1, got " + jobSize);
        if (activeJobRanks == null || activeJobRanks.length == 0)
            throw new IllegalArgumentException("activeJobRanks must name at least one live rank");
        activeJobRanks = activeJobRanks.clone();
        for (int i = 0; i < activeJobRanks.length; i++) {
            int r = activeJobRanks[i];
            if (r < 0 || r >= jobSize)
                throw new IllegalArgumentException(
                        "activeJobRanks[" + i + "] = " + r + " is not a rank of a job of " + jobSize);
            if (i > 0 && r <= activeJobRanks[i - 1])
                throw new IllegalArgumentException(
                        "activeJobRanks must be strictly increasing, got " + Arrays.toString(activeJobRanks));
        }
    }

    /** Every rank of a job of {@code jobSize} active: a mask that drops nothing. */
    public static ExpertMask all(int jobSize) {
        if (jobSize < 1) throw new IllegalArgumentException("jobSize must be >= 1, got " + jobSize);
        int[] r = new int[jobSize];
        for (int i = 0; i < jobSize; i++) r[i] = i;
        return new ExpertMask(jobSize, r);
    }

    /**
     * The mask of {@code comm}'s ranks in the original job of {@code jobSize} ranks: active are
     * {@link Communicator#jobRanks()} (after a {@link Communicator#shrink()}, the survivors).
     */
    public static ExpertMask of(Communicator comm, int jobSize) {
        if (comm == null) throw new IllegalArgumentException("communicator must not be null");
        return new ExpertMask(jobSize, comm.jobRanks());
    }

    /** A copy of the active job ranks. */
    @Override
    public int[] activeJobRanks() {
        return activeJobRanks.clone();
    }

    /** Ranks still active. */
    public int activeCount() {
        return activeJobRanks.length;
    }

    /** Whether every rank of the job is active (the mask drops nothing). */
    public boolean allActive() {
        return activeJobRanks.length == jobSize;
    }

    /** Whether job rank {@code jobRank} is active. */
    public boolean rankActive(int jobRank) {
        if (jobRank < 0 || jobRank >= jobSize)
            throw new IllegalArgumentException("job rank " + jobRank + " is not in [0, " + jobSize + ")");
        return Arrays.binarySearch(activeJobRanks, jobRank) >= 0;
    }

    /** Whether {@code expert} of {@code config} (placed over the original job) lives on an active rank. */
    public boolean expertActive(MoeConfig config, int expert) {
        if (config == null) throw new IllegalArgumentException("config must not be null");
        if (expert < 0 || expert >= config.numExperts())
            throw new IllegalArgumentException("expert " + expert + " is not in [0, " + config.numExperts() + ")");
        return rankActive(expert / config.numLocalExperts(jobSize));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ExpertMask m && m.jobSize == jobSize && Arrays.equals(m.activeJobRanks, activeJobRanks);
    }

    @Override
    public int hashCode() {
        return 31 * jobSize + Arrays.hashCode(activeJobRanks);
    }

    @Override
    public String toString() {
        return "ExpertMask[jobSize=" + jobSize + ", active=" + Arrays.toString(activeJobRanks) + "]";
    }
}
