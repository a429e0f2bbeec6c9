package dev.unicomm.backend.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.Cmp;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.Memory;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Team;
import dev.unicomm.testsupport.ThreadJob;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Several PEs as threads of one JVM: each maps every PE's file, as separate processes do. */
class MultiRankThreadsTest {
    /** {@code ranks} PEs of backend-shm as threads (each maps the others' heap files; the rendezvous is in memory). */
    private static ThreadJob shm(int ranks) {
        return ThreadJob.of(new ShmBackendProvider(), ranks);
    }

    @Test
    void ringPutThenBarrierDeliversToTheRightNeighbour() {
        List<Long> got = shm(4).values(comm -> {
            int n = comm.size(), me = comm.rank();
            try (SymmetricBuffer buf = comm.heap().allocate(8 * n)) {
                MemorySegment word = MemorySegment.ofArray(new long[] {1000L + me});
                comm.rma().put(buf, 8L * me, word, (me + 1) % n);
                comm.barrier();
                return buf.segment().get(ValueLayout.JAVA_LONG, 8L * ((me + n - 1) % n));
            }
        });
        assertEquals(List.of(1003L, 1000L, 1001L, 1002L), got);
    }

    @Test
    void barriersSeparatePhasesManyTimes() {
        // Each round every PE writes round r to every peer, then a barrier: after it all must read r.
        List<Boolean> ok = shm(3).values(comm -> {
            int n = comm.size();
            try (SymmetricBuffer buf = comm.heap().allocate(8 * n)) {
                for (long r = 1; r <= 500; r++) {
                    for (int pe = 0; pe < n; pe++)
                        comm.rma().put(buf, 8L * comm.rank(), MemorySegment.ofArray(new long[] {r}), pe);
                    comm.barrier();
                    for (int pe = 0; pe < n; pe++)
                        if (buf.segment().get(ValueLayout.JAVA_LONG, 8L * pe) != r) return false;
                    comm.barrier();
                }
                return true;
            }
        });
        assertEquals(List.of(true, true, true), ok);
    }

    @Test
    void concurrentFetchAddsFromEveryPeAreAtomic() {
        int perPe = 20_000;
        List<Long> sums = shm(4).values(comm -> {
            try (SymmetricBuffer buf = comm.heap().allocate(8)) {
                for (int i = 0; i < perPe; i++) comm.rma().atomicFetchAdd(buf, 0, 1, 0);
                comm.barrier();
                long v = comm.rma().atomicFetch(buf, 0, 0);
                comm.barrier();
                return v;
            }
        });
        sums.forEach(s -> assertEquals(4L * perPe, s));
    }

    @Test
    void putWithSignalMakesTheDataVisibleBeforeTheSignal() {
        int rounds = 2000, len = 4096;
        List<Boolean> ok = shm(2).values(comm -> {
            try (SymmetricBuffer data = comm.heap().allocate(len);
                    SymmetricBuffer sig = comm.heap().allocate(8)) {
                if (comm.rank() == 0) {
                    byte[] src = new byte[len];
                    for (int r = 1; r <= rounds; r++) {
                        java.util.Arrays.fill(src, (byte) r);
                        // Wait until PE 1 consumed round r-1 (it echoes the round in our signal word).
                        comm.rma().signalWaitUntil(sig, 0, Cmp.GE, r - 1);
                        comm.rma()
                                .putSignal(
                                        data,
                                        0,
                                        Memory.of(MemorySegment.ofArray(src)),
                                        0,
                                        len,
                                        sig,
                                        0,
                                        r,
                                        SignalOp.SET,
                                        1);
                    }
                } else {
                    for (int r = 1; r <= rounds; r++) {
                        comm.rma().signalWaitUntil(sig, 0, Cmp.GE, r);
                        for (int i = 0; i < len; i += 512)
                            if (data.segment().get(ValueLayout.JAVA_BYTE, i) != (byte) r) return false;
                        comm.rma().atomicSet(sig, 0, r, 0);
                    }
                }
                comm.barrier();
                return true;
            }
        });
        assertEquals(List.of(true, true), ok);
    }

    @Test
    void mismatchedAllocationSizesFailOnEveryPeNamingTheSizes() {
        var outcomes = shm(3).run(comm -> {
            try {
                comm.heap().allocate(comm.rank() == 2 ? 2048 : 1024);
                return "no error";
            } catch (IllegalArgumentException e) {
                // The failed call left the heaps alone and in step: a matching allocation still works.
                try (SymmetricBuffer b = comm.heap().allocate(64)) {
                    return e.getMessage() + " | next offset " + b.offset();
                }
            }
        });
        for (var o : outcomes) {
            String msg = o.get();
            // The API's call agreement catches it before the heap's own check: every PE names rank 2 and both sizes.
            assertTrue(msg.contains("heap allocate on rank") && msg.contains("rank 2 made a different call"), msg);
            assertTrue(
                    msg.contains("0: heap allocate #1 (size 1024") && msg.contains("2: heap allocate #1 (size 2048"),
                    msg);
            assertTrue(msg.endsWith("next offset 0"), msg);
        }
    }

    @Test
    void exhaustionFailsOnEveryPeAlike() {
        var outcomes = shm(2).timeout(Duration.ofSeconds(20)).heapSize(64 << 10).run(comm -> {
            try {
                comm.heap().allocate(128 << 10);
                return "no error";
            } catch (dev.unicomm.api.OutOfSymmetricMemoryException e) {
                return "oom";
            }
        });
        outcomes.forEach(o -> assertEquals("oom", o.get()));
    }

    @Test
    void mismatchedHeapSizesFailTheOpen() {
        var outcomes = shm(2).configs(r -> shm(2).timeout(Duration.ofSeconds(10))
                        .heapSize(r == 0 ? 1 << 16 : 1 << 17)
                        .config(r))
                .run(comm -> "opened");
        for (var o : outcomes) {
            assertNotNull(o.error(), "open must fail");
            assertInstanceOf(IllegalArgumentException.class, o.error());
            assertTrue(
                    o.error().getMessage().contains("rank 0 has 65536 bytes; rank 1 has 131072 bytes"),
                    o.error().getMessage());
        }
    }

    @Test
    void waitingForAPeThatNeverComesTimesOut() {
        var outcomes = shm(2).timeout(Duration.ofSeconds(1)).heapSize(64 << 10).run(comm -> {
            if (comm.rank() == 1) {
                Thread.sleep(2500); // rank 0's barrier gives up first
                return "slept";
            }
            comm.barrier();
            return "passed";
        });
        assertInstanceOf(CommTimeoutException.class, outcomes.get(0).error());
        assertTrue(
                outcomes.get(0).error().getMessage().contains("barrier of a team of 2 PEs"),
                outcomes.get(0).error().getMessage());
    }

    @Test
    void anAbortingPeStopsTheOthersWaitsNamingIt() {
        long t0 = System.nanoTime();
        var outcomes = shm(3).timeout(Duration.ofSeconds(30)).heapSize(64 << 10).run(comm -> {
            if (comm.rank() == 2) {
                ((dev.unicomm.internal.checked.CheckedCommunicator) comm)
                        .store()
                        .abort("rank 2 hit a bug");
                throw new IllegalStateException("rank 2 gives up");
            }
            comm.barrier();
            return "passed";
        });
        long seconds = (System.nanoTime() - t0) / 1_000_000_000;
        for (int r = 0; r < 2; r++) {
            var e = assertInstanceOf(
                    dev.unicomm.api.CommAbortedException.class, outcomes.get(r).error());
            assertEquals(2, e.failedRank());
            assertTrue(e.getMessage().contains("rank 2 hit a bug"), e.getMessage());
        }
        assertTrue(seconds < 10, "the waits noticed the abort instead of running into the 30 s timeout");
    }

    @Test
    void stridedSplitTeamsTranslateAndBarrier() {
        List<String> got = shm(4).values(comm -> {
            Team world = comm.world();
            try (Team even = world.split(0, 2, 2);
                    Team odd = world.split(1, 2, 2)) {
                Team mine = comm.rank() % 2 == 0 ? even : odd;
                Team other = comm.rank() % 2 == 0 ? odd : even;
                assertEquals(-1, other.rank());
                for (int i = 0; i < 200; i++) mine.barrier();
                // Team-scoped exchange: put my world rank to my team partner, then a team barrier.
                try (SymmetricBuffer buf = comm.heap().allocate(8)) {
                    int partner = mine.worldRank(1 - mine.rank());
                    comm.rma().put(buf, 0, MemorySegment.ofArray(new long[] {comm.rank()}), partner);
                    mine.barrier();
                    long from = buf.segment().get(ValueLayout.JAVA_LONG, 0);
                    comm.barrier();
                    return mine.rank() + "/" + mine.size() + " world=" + mine.worldRank(0) + "," + mine.worldRank(1)
                            + " translate=" + world.translate(comm.rank(), mine) + " from=" + from;
                }
            }
        });
        assertEquals(
                List.of(
                        "0/2 world=0,2 translate=0 from=2",
                        "0/2 world=1,3 translate=0 from=3",
                        "1/2 world=0,2 translate=1 from=0",
                        "1/2 world=1,3 translate=1 from=1"),
                got);
    }

    @Test
    void split2dGivesRowsAndColumns() {
        List<String> got = shm(6).values(comm -> {
            Team.Split2d grid = comm.world().split2d(3);
            try (Team x = grid.x();
                    Team y = grid.y()) {
                x.barrier();
                y.barrier();
                comm.barrier();
                StringBuilder sb = new StringBuilder("x" + x.rank() + "[");
                for (int i = 0; i < x.size(); i++) sb.append(x.worldRank(i));
                sb.append("] y").append(y.rank()).append("[");
                for (int i = 0; i < y.size(); i++) sb.append(y.worldRank(i));
                return sb.append("]").toString();
            }
        });
        assertEquals(
                List.of(
                        "x0[012] y0[03]",
                        "x1[012] y0[14]",
                        "x2[012] y0[25]",
                        "x0[345] y1[03]",
                        "x1[345] y1[14]",
                        "x2[345] y1[25]"),
                got);
    }

    @Test
    void teamSlotsAreReusedAfterClose() {
        // More splits than there are slots: works only if closing a team frees its slot everywhere.
        List<Integer> got = shm(2).values(comm -> {
            int passes = 0;
            for (int i = 0; i < Control.TEAM_SLOTS * 2; i++) {
                try (Team t = comm.world().split(0, 1, 2)) {
                    t.barrier();
                    t.barrier();
                    passes++;
                }
            }
            return passes;
        });
        assertEquals(List.of(128, 128), got);
    }

    @Test
    void peerViewsAreDirectLoadStore() {
        List<Long> got = shm(2).values(comm -> {
            try (SymmetricBuffer buf = comm.heap().allocate(16)) {
                int peer = 1 - comm.rank();
                buf.peer(peer).orElseThrow().set(ValueLayout.JAVA_LONG, 8, 77L + comm.rank());
                comm.rma().quiet();
                comm.barrier();
                return buf.segment().get(ValueLayout.JAVA_LONG, 8);
            }
        });
        assertEquals(List.of(78L, 77L), got);
    }
}
