package dev.unicomm.launch;

import java.util.List;

/**
 * How a job launched by {@link JobLauncher} ended.
 *
 * @param exitCode  the job's exit code: 0 if every rank succeeded; {@value JobLauncher#LOST_RANKS_EXIT_CODE} if an
 *                  elastic job completed after losing ranks; else the exit code of the first rank that failed, or
 *                  {@value JobLauncher#TIMEOUT_EXIT_CODE} if the job timeout hit first
 * @param failedRank the rank named as the cause: a rank found stopped (SIGSTOP) when the first one failed, else the
 *                   first rank that exited with a non-zero code; -1 if none
 * @param timedOut  whether the job timeout ended the job
 * @param rankExitCodes every rank's exit code, by rank (ranks killed by the launcher show the signal's code, e.g. 137;
 *                      -1 for a rank the job timeout hit before it was started)
 * @param lostRanks the ranks that failed while the others completed (elastic mode only; else empty)
 */
public record JobResult(
        int exitCode, int failedRank, boolean timedOut, List<Integer> rankExitCodes, List<Integer> lostRanks) {
    public JobResult {
        rankExitCodes = List.copyOf(rankExitCodes);
        lostRanks = List.copyOf(lostRanks);
    }

    /** A result without lost ranks. */
    public JobResult(int exitCode, int failedRank, boolean timedOut, List<Integer> rankExitCodes) {
        this(exitCode, failedRank, timedOut, rankExitCodes, List.of());
    }

    /** Whether every rank exited with 0. */
    public boolean succeeded() {
        return exitCode == 0;
    }

    /** Whether an elastic job's survivors completed after the {@link #lostRanks} died. */
    public boolean completedAfterLosingRanks() {
        return exitCode == JobLauncher.LOST_RANKS_EXIT_CODE && !lostRanks.isEmpty();
    }
}
