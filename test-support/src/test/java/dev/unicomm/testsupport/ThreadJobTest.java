package dev.unicomm.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.CommConfig;
import dev.unicomm.api.Memory;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.spi.BackendCommunicator;
import dev.unicomm.testsupport.threads.ThreadWorld;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** ThreadJob over the in-JVM thread double: real concurrency through the validating layer. */
class ThreadJobTest {

    @Test
    void everyRankRunsConcurrentlyAndItsValueComesBackByRank() {
        try (ThreadWorld w = ThreadWorld.create(4, false, 1 << 16)) {
            List<Long> got = w.job().values(comm -> {
                int me = comm.rank(), next = (me + 1) % comm.size();
                try (SymmetricBuffer inbox = comm.heap().allocate(8);
                        Arena a = Arena.ofConfined()) {
                    MemorySegment src = a.allocate(8);
                    src.set(ValueLayout.JAVA_LONG, 0, 100 + me);
                    comm.barrier();
                    comm.rma().put(inbox, 0, Memory.of(src), 0, 8, next);
                    comm.rma().quiet();
                    comm.barrier();
                    return inbox.segment().get(ValueLayout.JAVA_LONG, 0);
                }
            });
            assertEquals(List.of(103L, 100L, 101L, 102L), got);
        }
    }

    @Test
    void eachRankGetsTheJobsConfigurationAndTheValidatingLayer() {
        Set<Integer> seen = ConcurrentHashMap.newKeySet();
        try (ThreadWorld w = ThreadWorld.create(2, true, 1 << 16)) {
            w.job().timeout(Duration.ofSeconds(7)).properties(Map.of("x", "y")).runOk(comm -> {
                assertEquals("threads", comm.backend().name());
                assertEquals(Duration.ofSeconds(7), comm.timeout());
                // The validating layer rejects what a raw backend double would not check.
                assertThrows(IllegalArgumentException.class, () -> comm.heap().allocate(-1));
                seen.add(comm.rank());
            });
        }
        assertEquals(Set.of(0, 1), seen);
    }

    @Test
    void theRootFailureIsARanksOwnAssertionWithTheOthersSuppressed() {
        try (ThreadWorld w = ThreadWorld.create(3, true, 1 << 16)) {
            AssertionError e = assertThrows(AssertionError.class, () -> w.job().values(comm -> {
                if (comm.rank() == 1) throw new AssertionError("rank 1's own check");
                if (comm.rank() == 2) throw new IllegalStateException("a consequence");
                return "fine";
            }));
            assertTrue(e.getMessage().startsWith("rank 1 of 3 failed"), e.getMessage());
            assertEquals(1, e.getSuppressed().length);
            assertInstanceOf(IllegalStateException.class, e.getSuppressed()[0]);
        }
    }

    @Test
    void aRankWhoseOpenFailsAbortsTheStoreSoTheOthersFailAtOnceNamingIt() {
        try (ThreadWorld w = ThreadWorld.create(2, true, 1 << 16)) {
            long t0 = System.nanoTime();
            var outcomes = ThreadJob.of(
                            w.report(),
                            ctx -> {
                                if (ctx.rank() == 1) throw new IllegalStateException("no device on rank 1");
                                ctx.store().get("set-by-rank-1"); // waits for a rank that never comes
                                return w.open(ctx);
                            },
                            2)
                    .timeout(Duration.ofSeconds(60))
                    .run(comm -> "opened");
            assertEquals("no device on rank 1", outcomes.get(1).error().getMessage());
            var e = assertInstanceOf(CommAbortedException.class, outcomes.get(0).error());
            assertEquals(1, e.failedRank());
            assertTrue(e.getMessage().contains("no device on rank 1"), e.getMessage());
            assertNull(outcomes.get(0).value());
            assertTrue(
                    System.nanoTime() - t0 < Duration.ofSeconds(30).toNanos(),
                    "rank 0 did not wait for its 60 s timeout");
        }
    }

    @Test
    void aBackendOpenedButNotWrappedIsClosedAgain() {
        AtomicBoolean closed = new AtomicBoolean();
        try (ThreadWorld w = ThreadWorld.create(1, true, 1 << 16)) {
            var outcomes = ThreadJob.of(
                            w.report(),
                            ctx -> (BackendCommunicator) Proxy.newProxyInstance(
                                    BackendCommunicator.class.getClassLoader(),
                                    new Class<?>[] {BackendCommunicator.class},
                                    (proxy, m, args) -> switch (m.getName()) {
                                        case "rank" -> 0;
                                        case "size" -> 1;
                                        case "callAgreement" -> Optional.empty();
                                        case "close" -> {
                                            closed.set(true);
                                            yield null;
                                        }
                                        default -> throw new IllegalStateException("the double has no " + m.getName());
                                    }),
                            1)
                    .run(comm -> "opened");
            assertTrue(outcomes.get(0).failed());
            assertTrue(
                    outcomes.get(0).error().getMessage().startsWith("the double has no "),
                    outcomes.get(0).error().getMessage());
            assertTrue(closed.get(), "the raw backend must be closed when the validating layer cannot wrap it");
        }
    }

    @Test
    void aJobThatOutlivesItsLimitFailsTheTest() {
        try (ThreadWorld w = ThreadWorld.create(1, true, 1 << 16)) {
            AssertionError e = assertThrows(
                    AssertionError.class,
                    () -> w.job().jobTimeout(Duration.ofMillis(300)).run(comm -> {
                        Thread.sleep(60_000);
                        return null;
                    }));
            assertTrue(e.getMessage().contains("still running"), e.getMessage());
        }
    }

    @Test
    void perRankConfigurationsMustMatchTheJob() {
        try (ThreadWorld w = ThreadWorld.create(2, true, 1 << 16)) {
            ThreadJob job = w.job()
                    .configs(r -> new CommConfig(
                            "threads", 0, 2, 0, "h", 1, null, false, Duration.ofSeconds(5), 1 << 16, Map.of()));
            var e = assertThrows(IllegalArgumentException.class, () -> job.run(comm -> null));
            assertTrue(e.getMessage().contains("config for rank 1 of 2 says rank 0 of 2"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> ThreadJob.of(w.report(), w::open, 0));
            assertThrows(IllegalArgumentException.class, () -> w.job().heapSize(0));
            assertThrows(IllegalArgumentException.class, () -> w.job().timeout(Duration.ZERO));
        }
    }
}
