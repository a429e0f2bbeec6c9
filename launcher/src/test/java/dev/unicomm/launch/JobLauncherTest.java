package dev.unicomm.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommException;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Real multi-process jobs of {@link LaunchedRank}. */
@Timeout(600)
class JobLauncherTest {
    private final ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
    private final ByteArrayOutputStream errBytes = new ByteArrayOutputStream();

    private JobResult run(JobSpec spec) {
        try (PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
                PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8)) {
            return JobLauncher.run(
                    spec.withCommTimeout(Duration.ofSeconds(20)).withJobTimeout(Duration.ofSeconds(60)), out, err);
        }
    }

    private String out() {
        return outBytes.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return errBytes.toString(StandardCharsets.UTF_8);
    }

    @AfterEach
    void nothingLeftBehind() {
        List<ProcessHandle> left = ProcessHandle.current()
                .descendants()
                .filter(ProcessHandle::isAlive)
                .toList();
        left.forEach(ProcessHandle::destroyForcibly);
        assertEquals(
                List.of(),
                left.stream()
                        .map(h -> h.pid() + " " + h.info().commandLine().orElse("?"))
                        .toList(),
                "processes left behind by the job");
    }

    @Test
    void twoRanksMeetAndTheirOutputIsPrefixed() {
        JobResult r = run(JobSpec.of(2, LaunchedRank.class.getName(), "hello").withBackend("shm"));
        assertEquals(0, r.exitCode(), out() + err());
        assertTrue(r.succeeded());
        assertEquals(List.of(0, 0), r.rankExitCodes());
        assertTrue(out().contains("[0] rank 0 of 2 sees r0r1 tls=false token=true backend=shm"), out());
        assertTrue(out().contains("[1] rank 1 of 2 sees r0r1 tls=false token=true backend=shm"), out());
        assertTrue(err().contains("[1] stderr of rank 1"), err());
    }

    @Test
    void fourRanksMeet() {
        JobResult r = run(JobSpec.of(4, LaunchedRank.class.getName(), "hello"));
        assertEquals(0, r.exitCode(), out() + err());
        for (int p = 0; p < 4; p++)
            assertTrue(out().contains("[" + p + "] rank " + p + " of 4 sees r0r1r2r3 tls=false"), out());
    }

    /** Two ranks only: each JVM spends about a second initialising JSSE. */
    @Test
    void twoRanksOverTls() {
        JobResult r = run(JobSpec.of(2, LaunchedRank.class.getName(), "hello").withTls(true));
        assertEquals(0, r.exitCode(), out() + err());
        for (int p = 0; p < 2; p++)
            assertTrue(out().contains("[" + p + "] rank " + p + " of 2 sees r0r1 tls=true"), out());
    }

    @Test
    void eachJobGetsItsOwnTokenSharedByItsRanks() {
        assertEquals(
                0, run(JobSpec.of(2, LaunchedRank.class.getName(), "hello")).exitCode());
        assertEquals(
                0, run(JobSpec.of(2, LaunchedRank.class.getName(), "hello")).exitCode());
        List<String> hashes = Pattern.compile("tokenhash=(\\w+)")
                .matcher(out())
                .results()
                .map(m -> m.group(1))
                .toList();
        assertEquals(4, hashes.size(), out());
        assertEquals(hashes.get(0), hashes.get(1));
        assertEquals(hashes.get(2), hashes.get(3));
        assertFalse(hashes.get(0).equals(hashes.get(2)), "two jobs got the same token");
        assertFalse(
                String.join(" ", JobLauncher.command(JobSpec.of(2, "x.Main"))).contains("TOKEN"),
                "the token is passed by environment only");
    }

    @Test
    void aCrashedRankAbortsTheOthersThroughTheStore() {
        JobResult r = run(JobSpec.of(3, LaunchedRank.class.getName(), "fail-store", "1", "42"));
        assertEquals(42, r.exitCode(), out() + err());
        assertEquals(1, r.failedRank());
        assertTrue(out().contains("[0] rank 0 saw rank 1 fail"), out());
        assertTrue(out().contains("[2] rank 2 saw rank 1 fail"), out());
    }

    @Test
    void aFailedRankGetsTheHangingOthersAndTheirChildrenKilled() {
        long start = System.nanoTime();
        JobResult r = run(JobSpec.of(3, LaunchedRank.class.getName(), "fail-sleep", "2", "7")
                .withKillGrace(Duration.ofMillis(500)));
        long seconds = (System.nanoTime() - start) / 1_000_000_000L;
        assertEquals(7, r.exitCode(), out() + err());
        assertEquals(2, r.failedRank());
        assertTrue(
                seconds < 30,
                "the job took " + seconds + " s although the others were to be killed 0.5 s after the failure");
        assertTrue(err().contains("rank 2 exited with code 7"), err());
        Matcher m = Pattern.compile("started child (\\d+)").matcher(out());
        int children = 0;
        while (m.find()) {
            children++;
            assertFalse(
                    ProcessHandle.of(Long.parseLong(m.group(1)))
                            .map(ProcessHandle::isAlive)
                            .orElse(false),
                    "grandchild survived");
        }
        assertEquals(2, children, out());
    }

    @Test
    void theJobTimeoutKillsEverything() {
        try (PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
                PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8)) {
            JobResult r = JobLauncher.run(
                    JobSpec.of(2, LaunchedRank.class.getName(), "sleep").withJobTimeout(Duration.ofSeconds(2)),
                    out,
                    err);
            assertEquals(JobLauncher.TIMEOUT_EXIT_CODE, r.exitCode());
            assertTrue(r.timedOut());
            assertTrue(err().contains("job timeout"), err());
        }
    }

    /** Issue 45: a mistyped main class or class path entry is one line from the launcher, before any rank starts. */
    @Test
    void aMissingMainClassOrClassPathEntryIsNamedBeforeAnyRankStarts() {
        IllegalArgumentException noMain =
                assertThrows(IllegalArgumentException.class, () -> run(JobSpec.of(2, "no.such.Main")));
        assertTrue(
                noMain.getMessage().startsWith("main class no.such.Main is not on the ranks' class path"),
                noMain.getMessage());
        List<String> cp = new java.util.ArrayList<>(JobSpec.currentClasspath());
        cp.add("/no/such/app.jar");
        IllegalArgumentException noJar = assertThrows(
                IllegalArgumentException.class,
                () -> run(JobSpec.of(2, LaunchedRank.class.getName(), "hello").withClasspath(cp)));
        assertEquals("class path entry /no/such/app.jar does not exist", noJar.getMessage());
        IllegalArgumentException notAProgram =
                assertThrows(IllegalArgumentException.class, () -> run(JobSpec.of(2, JobResult.class.getName())));
        assertTrue(notAProgram.getMessage().contains("has no main method"), notAProgram.getMessage());
        assertEquals("", out() + err(), "no rank may have started");
    }

    /** Issue 45: in elastic mode (here from UNICOMM_ELASTIC) a dead rank does not get the others killed, and the end says so. */
    @Test
    void anElasticJobLetsTheSurvivorsFinishAndNamesTheLostRanks() {
        JobResult r = run(JobSpec.of(3, LaunchedRank.class.getName(), "exit-after", "1", "9", "2500", "0")
                .withEnv(Map.of("UNICOMM_ELASTIC", "true"))
                .withKillGrace(Duration.ofMillis(300)));
        assertEquals(JobLauncher.LOST_RANKS_EXIT_CODE, r.exitCode(), out() + err());
        assertTrue(r.completedAfterLosingRanks());
        assertEquals(List.of(1), r.lostRanks());
        assertEquals(1, r.failedRank());
        assertEquals(List.of(0, 9, 0), r.rankExitCodes());
        assertFalse(err().contains("stopping the ranks still running"), err());
        assertTrue(
                err().contains("[unicomm run] job completed after losing ranks [1] (exit code "
                        + JobLauncher.LOST_RANKS_EXIT_CODE + ")"),
                err());
    }

    @Test
    void anElasticJobWhoseSurvivorsAllFailIsAFailure() {
        JobResult r = run(JobSpec.of(3, LaunchedRank.class.getName(), "exit-after", "1", "9", "300", "4")
                .withElastic(true));
        assertEquals(9, r.exitCode(), out() + err());
        assertEquals(1, r.failedRank());
        assertFalse(r.completedAfterLosingRanks());
        assertFalse(err().contains("completed after losing"), err());
    }

    /** Issue 45: a SIGSTOPped rank makes the others time out first; the launcher names it, not the first to exit. */
    @Test
    void aStoppedRankIsNamedAsTheCause() {
        try (PrintStream out = new PrintStream(outBytes, true, StandardCharsets.UTF_8);
                PrintStream err = new PrintStream(errBytes, true, StandardCharsets.UTF_8)) {
            JobResult r = JobLauncher.run(
                    JobSpec.of(3, LaunchedRank.class.getName(), "stop-self", "2")
                            .withCommTimeout(Duration.ofSeconds(2))
                            .withJobTimeout(Duration.ofSeconds(60))
                            .withKillGrace(Duration.ofMillis(500)),
                    out,
                    err);
            assertEquals(2, r.failedRank(), err());
            assertFalse(r.succeeded());
            assertTrue(err().contains("[unicomm run] rank 2 is stopped (SIGSTOP"), err());
        }
    }

    /** Issue 45: a rank's own failure read "rank 0 failed: CommAbortedException: rank 0 failed: ...". */
    @Test
    void aRanksOwnFailureNamesItOnce() {
        JobResult r = run(JobSpec.of(1, LaunchedRank.class.getName(), "own-abort"));
        assertEquals(1, r.exitCode(), out() + err());
        assertTrue(
                err().contains("[0] [unicomm] rank 0 failed: CommAbortedException: it gave up (UNICOMM_VERBOSE=1"),
                err());
    }

    @Test
    void badSpecsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> JobSpec.of(0, "x.Main"));
        assertThrows(IllegalArgumentException.class, () -> JobSpec.of(2, " "));
        assertThrows(
                IllegalArgumentException.class, () -> JobSpec.of(2, "x.Main").withJobTimeout(Duration.ZERO));
        assertThrows(
                IllegalArgumentException.class, () -> JobSpec.of(2, "x.Main").withClasspath(List.of()));
        JobSpec noJava = new JobSpec(
                1,
                "/no/such/java",
                JobSpec.currentClasspath(),
                LaunchedRank.class.getName(),
                List.of(),
                List.of(),
                Map.of(),
                null,
                false,
                null,
                null,
                Duration.ofSeconds(1));
        CommException e = assertThrows(CommException.class, () -> JobLauncher.run(noJava));
        assertTrue(e.getMessage().contains("/no/such/java"), e.getMessage());
    }
}
