package dev.unicomm.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.backend.shm.ShmBackendProvider;
import dev.unicomm.testsupport.ThreadJob;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

class WarmupTest {
    // The agreement allreduce takes the portable collectives' scratch (about 320 KiB) from the heap.
    private static void sleepMs(long ms) { LockSupport.parkNanos(ms * 1_000_000); }

    @Test void stopsTogetherOnceEveryRankIsSteady() {
        // Rank 0 is slow for its first 3 rounds (a JIT still compiling), rank 1 is steady from the start:
        // both stop at the same round, once rank 0 has been fast for `patience` (6) rounds: round 10, or a
        // little later if a fast round's sleep overshoots.
        List<Integer> rounds = ThreadJob.of(new ShmBackendProvider(), 2).heapSize(4 << 20).values(comm -> {
            int[] n = {0};
            return Warmup.untilSteady(comm, 3, 1, 6, 30_000_000_000L,
                    () -> sleepMs(comm.rank() == 0 && n[0]++ < 3 ? 40 : 2));
        });
        assertEquals(rounds.get(0), rounds.get(1), "ranks stop at the same round");
        assertTrue(rounds.get(0) >= 3 + 1 + 6, "rank 0 was slow for 3 rounds, then needed 6 more after its first fast one: " + rounds);
        assertTrue(rounds.get(0) <= 3 + 1 + 6 + 6, "no more rounds than a few overshooting sleeps explain: " + rounds);
    }

    @Test void stopsAtTheTimeLimitWhenNeverSteady() {
        // A patience of 10000 rounds is never reached: the limit (0.3 s of 10 ms rounds) ends it.
        long start = System.nanoTime();
        List<Integer> rounds = ThreadJob.of(new ShmBackendProvider(), 2).heapSize(4 << 20).values(comm ->
                Warmup.untilSteady(comm, 3, 1, 10_000, 300_000_000L, () -> sleepMs(10)));
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertEquals(rounds.get(0), rounds.get(1), "ranks stop at the same round");
        // The first rounds also pay the allreduce's set-up, so under load the limit can come before minRounds.
        assertTrue(rounds.get(0) >= 1 && rounds.get(0) <= 31, "at most 0.3 s of 10 ms rounds: " + rounds);
        assertTrue(ms < 10_000, "ended by the limit, not the job's timeout: " + ms + " ms");
    }
}
