package dev.unicomm.backend.nvshmem.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.NativeCallException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** A blocking NVSHMEM call (stood in for by a latch) must not strand its caller when the job dies or stalls. */
class WatchedCallTest {
    /** A job whose abort the test raises. */
    static final class FakeJob implements WatchedCall.Job {
        final AtomicReference<RuntimeException> abort = new AtomicReference<>();
        final AtomicBoolean broken = new AtomicBoolean();
        final Duration timeout;

        FakeJob(Duration timeout) {
            this.timeout = timeout;
        }

        @Override
        public void checkHealthy() {
            RuntimeException e = abort.get();
            if (e != null) {
                broken.set(true);
                throw e;
            }
        }

        @Override
        public Duration timeout() {
            return timeout;
        }

        @Override
        public void markBroken() {
            broken.set(true);
        }
    }

    @Test
    void returnsTheCallsValueAndRethrowsItsException() {
        FakeJob job = new FakeJob(Duration.ofSeconds(10));
        assertEquals(42L, WatchedCall.run(job, "nvshmem_align", () -> 42L));
        NativeCallException failed = new NativeCallException("nvshmem_align", 3, "symmetric heap exhausted");
        assertSame(
                failed,
                assertThrows(
                        NativeCallException.class,
                        () -> WatchedCall.run(job, "nvshmem_align", () -> {
                            throw failed;
                        })));
        assertFalse(job.broken.get(), "a call that returned, even with an error, leaves the communicator usable");
    }

    @Test
    void anAbortWhileTheCallBlocksEndsTheWaitNamingTheLostRank() throws Exception {
        FakeJob job = new FakeJob(Duration.ofSeconds(30));
        CountDownLatch never = new CountDownLatch(1);
        Thread.ofPlatform().daemon().start(() -> {
            sleep(200);
            job.abort.set(new CommAbortedException(2, "rank 2 was killed"));
        });
        long start = System.nanoTime();
        CommAbortedException e = assertThrows(
                CommAbortedException.class,
                () -> WatchedCall.run(job, "nvshmem_align", () -> {
                    await(never); // a peer that never arrives in NVSHMEM's barrier
                    return 0L;
                }));
        long ms = (System.nanoTime() - start) / 1_000_000;
        assertEquals(2, e.failedRank());
        assertTrue(ms < 10_000, "the abort ended the wait after " + ms + " ms");
        assertTrue(job.broken.get());
        never.countDown();
    }

    @Test
    void aCallThatNeverReturnsTimesOutAndBreaksTheCommunicator() {
        FakeJob job = new FakeJob(Duration.ofMillis(300));
        CountDownLatch never = new CountDownLatch(1);
        CommTimeoutException e = assertThrows(
                CommTimeoutException.class,
                () -> WatchedCall.run(job, "nvshmem_free", () -> {
                    await(never);
                    return null;
                }));
        assertTrue(e.getMessage().contains("nvshmem_free"), e.getMessage());
        assertTrue(job.broken.get());
        never.countDown();
    }

    private static void await(CountDownLatch l) {
        try {
            l.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
