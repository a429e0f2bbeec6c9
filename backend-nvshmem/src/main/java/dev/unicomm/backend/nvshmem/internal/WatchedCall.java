package dev.unicomm.backend.nvshmem.internal;

import dev.unicomm.api.CommException;
import dev.unicomm.api.CommTimeoutException;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * Runs an NVSHMEM host call that waits inside NVSHMEM for every PE ({@code nvshmem_align} and
 * {@code nvshmem_free} end in NVSHMEM's own barrier; team splits exchange through it) so that a
 * peer dying meanwhile cannot strand the caller: the call runs on a daemon thread while the caller
 * watches the job's health and the timeout. NVSHMEM's waits have no deadline, so after an abort the
 * call stays blocked on that thread, and the communicator is marked broken (its close then skips
 * collective steps and leaves the memory to process exit).
 */
final class WatchedCall {
    private WatchedCall() {}

    /** What the caller watches while the call runs. */
    interface Job {
        /** Throws (CommAbortedException naming the lost PE) once the job was aborted. */
        void checkHealthy();

        Duration timeout();

        /** A wait failed: later steps must not assume the PEs still match. */
        void markBroken();
    }

    static <T> T run(Job c, String what, Supplier<T> call) {
        FutureTask<T> task = new FutureTask<>(call::get);
        Thread.ofPlatform().daemon().name("nvshmem " + what).start(task);
        long start = System.nanoTime();
        while (true) {
            try {
                return task.get(1, TimeUnit.MILLISECONDS);
            } catch (TimeoutException e) {
                c.checkHealthy(); // a dead peer: CommAbortedException naming it
                if (System.nanoTime() - start > c.timeout().toNanos()) {
                    c.markBroken();
                    throw new CommTimeoutException(
                            what + " (still inside NVSHMEM, waiting for the other PEs)", c.timeout());
                }
            } catch (ExecutionException e) {
                if (e.getCause() instanceof RuntimeException r) throw r;
                if (e.getCause() instanceof Error err) throw err;
                throw new CommException(what + " failed", e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                c.markBroken(); // the call may still complete on its thread: this PE no longer matches the others
                throw new CommException(
                        "interrupted while waiting for " + what + "; the communicator can only be closed now");
            }
        }
    }
}
