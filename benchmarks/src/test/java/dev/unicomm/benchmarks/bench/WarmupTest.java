package dev.unicomm.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.backend.shm.ShmBackendProvider;
import dev.unicomm.testsupport.ThreadJob;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

class WarmupTest {
    private static void sleepMs(long ms) {
        LockSupport.parkNanos(ms * 1_000_000);
    }

    @Test
    void stopsTogetherOnceEveryRankIsSteady() {
        // Rank 0 is slow for its first 3 rounds (a JIT still compiling), rank 1 is steady from the start:
        // both stop at the same round, once rank 0 has been fast for `patience` (6) rounds: round 10, or a
        // little later if a fast round's sleep overshoots.
        List<Integer> rounds = ThreadJob.of(new ShmBackendProvider(), 2).values(comm -> {
            int[] n = {0};
            int r = Warmup.untilSteady(
                    comm, 3, 1, 6, 30_000_000_000L, () -> sleepMs(comm.rank() == 0 && n[0]++ < 3 ? 40 : 2));
            // The heap is left whole: a bench allocates its next MoE buffer, nearly the heap's size, after a
            // warm-up (an allreduce's scratch left on the heap once split it so that this failed).
            comm.heap().allocate(ThreadJob.DEFAULT_HEAP_SIZE - (16 << 10)).close();
            return r;
        });
        assertEquals(rounds.get(0), rounds.get(1), "ranks stop at the same round");
        assertTrue(
                rounds.get(0) >= 3 + 1 + 6,
                "rank 0 was slow for 3 rounds, then needed 6 more after its first fast one: " + rounds);
        assertTrue(rounds.get(0) <= 3 + 1 + 6 + 6, "no more rounds than a few overshooting sleeps explain: " + rounds);
    }

    @Test
    void stopsAtTheTimeLimitWhenNeverSteady() {
        // A patience of 10000 rounds is never reached: the limit (0.3 s of 10 ms rounds) ends it.
        long start = System.nanoTime();
        List<Integer> rounds = ThreadJob.of(new ShmBackendProvider(), 2)
                .values(comm -> Warmup.untilSteady(comm, 3, 1, 10_000, 300_000_000L, () -> sleepMs(10)));
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertEquals(rounds.get(0), rounds.get(1), "ranks stop at the same round");
        // Under load a round can take longer than planned, so the limit may come before minRounds.
        assertTrue(rounds.get(0) >= 1 && rounds.get(0) <= 31, "at most 0.3 s of 10 ms rounds: " + rounds);
        assertTrue(ms < 10_000, "ended by the limit, not the job's timeout: " + ms + " ms");
    }
}
