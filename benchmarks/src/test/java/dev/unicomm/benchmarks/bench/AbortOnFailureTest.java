package dev.unicomm.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.backend.shm.ShmBackendProvider;
import dev.unicomm.testsupport.ThreadJob;
import java.util.List;
import org.junit.jupiter.api.Test;

class AbortOnFailureTest {
    @Test
    void aRankThatThrowsEndsItsPeersWaitAtOnce() {
        long start = System.nanoTime();
        List<Object> seen = ThreadJob.of(new ShmBackendProvider(), 2).values(comm -> {
            try {
                if (comm.rank() == 0) {
                    try (AbortOnFailure guard = new AbortOnFailure(comm, "the test's body")) {
                        throw new IllegalStateException("boom");
                    }
                }
                comm.barrier(); // rank 1 waits here for a rank that never comes
                return "no exception";
            } catch (RuntimeException e) {
                return e;
            }
        });
        assertEquals("boom", ((IllegalStateException) seen.get(0)).getMessage(), "the thrower keeps its own error");
        CommAbortedException aborted =
                assertInstanceOf(CommAbortedException.class, seen.get(1), "the peer's wait ends with the abort");
        assertTrue(aborted.getMessage().contains("rank 0 failed in the test's body"), aborted.getMessage());
        assertTrue((System.nanoTime() - start) / 1_000_000_000L < 10, "ended by the abort, not by a timeout");
    }

    @Test
    void aBodyThatFinishesAbortsNothing() {
        List<String> seen = ThreadJob.of(new ShmBackendProvider(), 2).values(comm -> {
            try (AbortOnFailure guard = new AbortOnFailure(comm, "the test's body")) {
                comm.barrier();
                guard.done();
            }
            comm.barrier(); // still usable: nothing was aborted
            return "ok";
        });
        assertEquals(List.of("ok", "ok"), seen);
    }
}
