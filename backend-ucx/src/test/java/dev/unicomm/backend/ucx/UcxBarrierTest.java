package dev.unicomm.backend.ucx;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.CommException;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.Memory;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.testsupport.ThreadJob;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The world barrier over UCX (tagged messages on the communicator's worker, not the rendezvous store): consecutive
 * barriers never take each other's messages, RMA issued before a barrier is visible after it, and a rank that never
 * arrives fails the barrier naming it within the timeout. PEs are threads of this JVM.
 */
class UcxBarrierTest {
    @BeforeAll
    static void needsUcx() {
        UcxAvailable.assume();
    }

    /**
     * 5 PEs (3 rounds, not a power of two), 300 back-to-back barriers, ranks skewed by short sleeps that change from
     * barrier to barrier, communicator and world-team barriers alternating (one sequence). Before barrier {@code i} each
     * PE puts {@code i} (non-blocking) into its successor's slot of parity {@code i % 2} and adds 1 to a counter on PE
     * 0. After it: the slot holds {@code i} (the put completed at the target; the predecessor can write the same slot
     * again only after this PE reaches barrier {@code i + 1}) and the counter is at least {@code 5 (i + 1)} (nobody left
     * before everyone arrived; a message of another barrier taken for this one would let a PE out early).
     */
    @Test
    void consecutiveSkewedBarriersNeverMixAndCompleteEarlierPuts() {
        int n = 5, barriers = 300;
        List<String> problems = ThreadJob.of(new UcxBackendProvider(), n)
                .jobTimeout(Duration.ofSeconds(90))
                .values(comm -> {
                    int me = comm.rank(), next = (me + 1) % n, prev = (me + n - 1) % n;
                    try (SymmetricBuffer slots = comm.heap().allocate(16L * n);
                            SymmetricBuffer counter = comm.heap().allocate(8);
                            Arena a = Arena.ofConfined()) {
                        MemorySegment word = a.allocate(8, 8);
                        comm.barrier();
                        for (int i = 0; i < barriers; i++) {
                            word.set(ValueLayout.JAVA_LONG, 0, i);
                            comm.rma().putNbi(slots, 16L * me + 8L * (i % 2), Memory.of(word), 0, 8, next);
                            comm.rma().atomicAdd(counter, 0, 1, 0);
                            int skew = (i * 31 + me * 17) % 7;
                            if (skew == 0) LockSupport.parkNanos(1_000_000);
                            else if (skew == 1) Thread.onSpinWait();
                            if (i % 2 == 0) comm.barrier();
                            else comm.world().barrier();
                            long got = slots.segment().get(ValueLayout.JAVA_LONG, 16L * prev + 8L * (i % 2));
                            if (got != i) return "barrier " + i + ": PE " + prev + "'s put shows " + got;
                            long arrived = comm.rma().atomicFetch(counter, 0, 0);
                            if (arrived < (long) n * (i + 1))
                                return "barrier " + i + ": left with only " + arrived + " arrivals of "
                                        + (long) n * (i + 1);
                        }
                        comm.barrier();
                        return null;
                    }
                });
        problems.forEach(p -> assertNull(p, p));
    }

    /**
     * 2 PEs, timeout 2 s: PE 1 does not come to the barrier. PE 0's barrier fails naming PE 1 within the timeout and a
     * little; PE 1's barrier afterwards fails at once (the job is failed), not after its own timeout.
     */
    @Test
    void aRankThatNeverArrivesFailsTheBarrierNamingIt() {
        Duration timeout = Duration.ofSeconds(2);
        CountDownLatch failed = new CountDownLatch(1);
        long[] tookMs = new long[2];
        List<ThreadJob.Outcome<Long>> out = ThreadJob.of(new UcxBackendProvider(), 2)
                .timeout(timeout)
                .jobTimeout(Duration.ofSeconds(60))
                .run(comm -> {
                    long t0 = System.nanoTime();
                    try {
                        if (comm.rank() == 1 && !failed.await(30, TimeUnit.SECONDS))
                            throw new AssertionError("PE 0's barrier did not fail within 30 s");
                        comm.barrier();
                    } finally {
                        tookMs[comm.rank()] = (System.nanoTime() - t0) / 1_000_000;
                        if (comm.rank() == 0) failed.countDown();
                    }
                    return tookMs[comm.rank()];
                });
        Throwable e0 = out.get(0).error(), e1 = out.get(1).error();
        assertInstanceOf(CommException.class, e0, "PE 0: " + e0);
        assertTrue(e0 instanceof CommTimeoutException || e0 instanceof CommAbortedException, "PE 0 failed with " + e0);
        assertTrue(e0.getMessage().contains("PE 1") || e0.getMessage().contains("rank 1"), "names no PE: " + e0);
        assertTrue(tookMs[0] < timeout.toMillis() + 5_000, "PE 0 failed only after " + tookMs[0] + " ms");
        // PE 0 failed the job (store abort) naming PE 1: PE 1's barrier finds it failed at once.
        assertInstanceOf(CommAbortedException.class, e1, "PE 1, after PE 0 reported it: " + e1);
        assertTrue(e1.getMessage().contains("rank 1 did not answer"), "PE 1 was told: " + e1);
    }
}
