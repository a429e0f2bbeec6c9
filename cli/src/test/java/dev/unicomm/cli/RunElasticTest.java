package dev.unicomm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.launch.JobLauncher;
import dev.unicomm.testsupport.ConsoleCapture.Captured;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 45: an elastic job on backend-shm through {@code unicomm run} with its default options: rank 2
 * SIGKILLs itself mid-loop, the survivors shrink and finish, and {@code run} says so with its own exit code.
 */
@Timeout(600)
class RunElasticTest {
    @Test
    void survivorsOfAKilledRankShrinkAndFinishAndRunSaysTheJobCompletedAfterLosingIt() {
        Captured r = CliRunner.line(
                "run -n 4 --backend shm --elastic --timeout 120s -- " + ElasticRank.class.getName() + " 2");
        String all = r.out() + r.err();
        assertEquals(JobLauncher.LOST_RANKS_EXIT_CODE, r.code(), all);
        assertTrue(
                r.err()
                        .contains("[unicomm run] job completed after losing ranks [2] (exit code "
                                + JobLauncher.LOST_RANKS_EXIT_CODE + ")"),
                all);
        assertFalse(r.err().contains("stopping the ranks still running"), all);
        assertTrue(r.out().contains("[0] rank 0 lost ranks [2]"), all);
        assertTrue(r.out().contains("[0] rank 0 went on as 0/3 allreduce ok"), all);
        assertTrue(r.out().contains("[1] rank 1 went on as 1/3 allreduce ok"), all);
        assertTrue(r.out().contains("[3] rank 3 went on as 2/3 allreduce ok"), all);
    }

    /** The same job, elastic mode set the way the user did (a JVM option; UNICOMM_ELASTIC=true works alike), survivors failing after the shrink. */
    @Test
    void elasticJobWhoseSurvivorsAllFailIsAFailure() {
        Captured r = CliRunner.line("run -n 3 --backend shm -J-Dunicomm.elastic=true --timeout 120s -- "
                + ElasticRank.class.getName() + " 1 fail-after");
        String all = r.out() + r.err();
        assertEquals(137, r.code(), all); // the first failure's: rank 1's SIGKILL
        assertTrue(r.out().contains("[2] rank 2 lost ranks [1]"), all);
        assertFalse(r.err().contains("completed after losing"), all);
        assertFalse(r.err().contains("stopping the ranks still running"), all);
    }
}
