package dev.unicomm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.testsupport.ConsoleCapture.Captured;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 18, finding 8: every error of the {@code unicomm} command is one line and a non-zero exit;
 * stack traces only with {@code --verbose}; {@code run} checks {@code --backend} and {@code -n} before
 * starting anything, honours {@code --timeout}, and a rank killed under it costs one line per survivor.
 */
@Timeout(600)
class CliErrorsTest {
    record Ran(int code, String out, String err, long ms) {
        List<String> errLines() {
            return err.lines().filter(l -> !l.isBlank()).toList();
        }

        boolean hasStackTrace() {
            return err.lines().anyMatch(l -> l.startsWith("\tat ") || l.trim().startsWith("at dev.unicomm"));
        }
    }

    private static Ran run(String... args) {
        long start = System.nanoTime();
        Captured c = CliRunner.run(args);
        return new Ran(c.code(), c.out(), c.err(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    private static void oneLine(Ran r, String command, String mentions) {
        assertEquals(2, r.code(), r.err());
        assertEquals(1, r.errLines().size(), "one line, got:\n" + r.err());
        String line = r.errLines().getFirst();
        assertTrue(line.startsWith(command + ": ") && line.contains(mentions), line);
        assertFalse(r.hasStackTrace(), r.err());
    }

    @Test
    void badBenchValuesAreOneLine() {
        oneLine(run("bench", "collectives", "--max-size", "1P"), "unicomm bench collectives", "1P");
        oneLine(run("bench", "moe", "--tokens", "0"), "unicomm bench moe", "--tokens");
        oneLine(run("bench", "soak", "--duration", "-1s"), "unicomm bench soak", "--duration");
    }

    @Test
    void verboseKeepsTheStackTrace() {
        Ran r = run("--verbose", "bench", "moe", "--tokens", "0");
        assertEquals(2, r.code(), r.err());
        assertTrue(r.hasStackTrace() && r.err().contains("--tokens"), r.err());
    }

    @Test
    void runRefusesAnUnknownBackendBeforeStartingAnyRank() {
        Ran r = run("run", "-n", "2", "--backend", "nosuch", "--", RankProgram.class.getName());
        oneLine(r, "unicomm run", "unknown backend 'nosuch'");
        assertTrue(r.err().contains("shm"), "the message lists the backends found: " + r.err());
        assertFalse(r.out().contains("joined"), r.out());
    }

    @Test
    void runRefusesAbsurdRankCountsUnlessForced() {
        int n = RunCommand.RANKS_PER_PROCESSOR * Runtime.getRuntime().availableProcessors() + 1;
        Ran r = run("run", "-n", Integer.toString(n), "--", RankProgram.class.getName());
        oneLine(r, "unicomm run", "--oversubscribe");
    }

    @Test
    void runHonoursItsTimeoutPromptly() {
        Ran r = run("run", "-n", "2", "--timeout", "3s", "--", RankProgram.class.getName(), "sleep");
        assertEquals(124, r.code(), r.err());
        // 3 s, then SIGTERM with 2 s of grace: generous for a busy two-core machine, far below the old minutes.
        assertTrue(r.ms() < 25_000, "--timeout 3s returned after " + r.ms() + " ms");
        System.out.println("[reliability] run --timeout 3s returned 124 after " + r.ms() + " ms");
    }

    /** The case: one rank of {@code bench collectives} killed mid-run used to print 254 lines, 204 of them frames. */
    @Test
    void aRankKilledDuringBenchCollectivesGivesAShortReport() throws Exception {
        // Its own thread, not the common pool: on two cores that pool has a single thread that the job's own waits may
        // need.
        java.util.concurrent.FutureTask<Ran> bench = new java.util.concurrent.FutureTask<>(() -> run(
                "bench",
                "collectives",
                "-n",
                "2",
                "--ops",
                "allreduce",
                "--min-size",
                "4",
                "--max-size",
                "64K",
                "--seconds",
                "2",
                "--warmup",
                "8"));
        Thread.ofPlatform().daemon().start(bench);
        ProcessHandle victim = null;
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        long bothSeen = 0;
        while (victim == null && System.nanoTime() < until && !bench.isDone()) {
            Thread.sleep(200);
            List<ProcessHandle> workers = ProcessHandle.current()
                    .descendants()
                    .filter(h -> h.info().commandLine().orElse("").contains("CollectivesBenchWorker"))
                    .toList();
            if (workers.size() < 2) continue;
            if (bothSeen == 0) bothSeen = System.nanoTime();
            // Both JVMs up for 5 s: they have met and are warming up (8 s at least).
            if (System.nanoTime() - bothSeen > TimeUnit.SECONDS.toNanos(5)) victim = workers.get(1);
        }
        assertTrue(victim != null, "no benchmark rank to kill");
        victim.destroyForcibly();
        Ran r = bench.get(120, TimeUnit.SECONDS);
        assertEquals(1, r.code(), r.err());
        // The survivor's failure and the command's own are one line each. (Frames may still come from a WARNING that
        // close() logs after the abort, in the Checked layer: issue 18's quiet-close item, not checked here.)
        assertTrue(r.err().contains("failed: CommAbortedException: rank "), r.err());
        assertTrue(
                r.errLines().getLast().startsWith("unicomm bench collectives: benchmark job of 2 ranks failed"),
                r.err());
        assertFalse(r.err().contains("Exception in thread"), "no uncaught exception trace from a rank:\n" + r.err());
        assertTrue(
                r.errLines().size() <= 40, "a short report, got " + r.errLines().size() + " lines:\n" + r.err());
        long frames = r.err().lines().filter(l -> l.contains("\tat ")).count();
        System.out.println("[reliability] rank killed in bench collectives: "
                + r.errLines().size() + " lines on stderr, " + frames + " frames");
    }

    @Test
    void aKilledRankCostsOneLinePerSurvivor() {
        Ran r = run(
                "run",
                "-n",
                "3",
                "--kill-grace",
                "20s",
                "--timeout",
                "90s",
                "--",
                RankProgram.class.getName(),
                "killed",
                "1");
        assertEquals(137, r.code(), r.out() + r.err());
        assertFalse(r.hasStackTrace(), r.err());
        for (int survivor : new int[] {0, 2})
            assertTrue(
                    r.err()
                            .contains("[" + survivor + "] [unicomm] rank " + survivor
                                    + " failed: CommAbortedException: rank 1 failed"),
                    r.err());
        assertTrue(
                r.errLines().size() <= 8, "a short message, got " + r.errLines().size() + " lines:\n" + r.err());
        System.out.println(
                "[reliability] killed rank under unicomm run: " + r.errLines().size() + " lines on stderr");
    }
}
