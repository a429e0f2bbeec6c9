package dev.unicomm.launch;

import java.util.List;

/**
 * How a job launched by {@link JobLauncher} ended.
 *
 * @param exitCode  the job's exit code: 0 if every rank succeeded, else the exit code of the first rank
 *                  that failed, or {@value JobLauncher#TIMEOUT_EXIT_CODE} if the job timeout hit first
 * @param failedRank the first rank that exited with a non-zero code, or -1
 * @param timedOut  whether the job timeout ended the job
 * @param rankExitCodes every rank's exit code, by rank (ranks killed by the launcher show the signal's code, e.g. 137;
 *                      -1 for a rank the job timeout hit before it was started)
 */
public record JobResult(int exitCode, int failedRank, boolean timedOut, List<Integer> rankExitCodes) {
    public JobResult {
        rankExitCodes = List.copyOf(rankExitCodes);
    }

    /** Whether every rank exited with 0. */
    public boolean succeeded() { return exitCode == 0; }
}
