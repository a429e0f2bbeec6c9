package dev.unicomm.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 18, finding 6: ranks that choose different backends fail at once, every one of them naming
 * each rank's choice, instead of waiting on different keys until the timeout (60 s here).
 */
@Timeout(600)
class BackendAgreementTest {
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    private JobResult run(String alphaRank) {
        JobSpec spec = JobSpec.of(2, AgreementRank.class.getName())
                .withJvmOptions(List.of("-Dagreement.alphaRank=" + alphaRank))
                .withCommTimeout(Duration.ofSeconds(60))
                .withJobTimeout(Duration.ofSeconds(100));
        try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
                PrintStream e = new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)) {
            return JobLauncher.run(spec, o, e);
        }
    }

    @Test
    void ranksThatChooseDifferentBackendsAllFailAtOnceNamingEachChoice() {
        long start = System.nanoTime();
        JobResult r = run("0"); // alpha on rank 0 only: rank 0 picks alpha, rank 1 beta
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(List.of(3, 3), r.rankExitCodes(), text);
        // Rank 1 finds the mismatch; its abort reaches rank 0 (waiting in the open) with the same words.
        assertTrue(
                text.contains(
                        "[1] rank 1 failed: ranks chose different backends: rank 0 chose 'alpha' dev, rank 1 chose 'beta' dev"),
                text);
        assertTrue(
                text.contains(
                        "[0] rank 0 failed: rank 1 failed: could not settle on a backend: ranks chose different backends: "
                                + "rank 0 chose 'alpha' dev, rank 1 chose 'beta' dev"),
                text);
        assertTrue(ms < 40_000, "the job took " + ms + " ms to fail; the wait timeout is 60 s");
        System.out.println("[reliability] backend disagreement: both ranks failed after " + ms + " ms");
    }

    @Test
    void ranksThatAgreeGoOnToOpenTheBackend() {
        JobResult r = run("all");
        String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(List.of(4, 4), r.rankExitCodes(), text);
        assertTrue(
                text.contains("[0] rank 0: reached open of alpha")
                        && text.contains("[1] rank 1: reached open of alpha"),
                text);
    }
}
