package dev.unicomm.backend.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.Cmp;
import dev.unicomm.api.Memory;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Team;
import dev.unicomm.testsupport.ThreadJob;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The SPI's RMA over verbs: two PEs in one JVM (threads) on one device (needs the soft-RoCE VM). */
class RdmaRmaTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(60);

    /** Opens a 2-PE job (threads, in-memory rendezvous), runs {@code body} on both PEs concurrently, closes (collective). */
    private static void job(ThreadJob.Work body) {
        RdmaDevice.require();
        ThreadJob.of(new RdmaBackendProvider(), 2)
                .timeout(TIMEOUT)
                .heapSize(8L << 20)
                .properties(Map.of("rdma.device", RdmaDevice.name()))
                .jobTimeout(TIMEOUT.multipliedBy(2))
                .runOk(body);
    }

    @Test
    void putGetQuietAndBarrier() throws Exception {
        job(comm -> {
            int me = comm.rank(), peer = 1 - me;
            try (SymmetricBuffer buf = comm.heap().allocate(64 * 1024);
                    Arena arena = Arena.ofConfined()) {
                MemorySegment src = arena.allocate(40_000);
                for (int i = 0; i < 40_000; i++) src.set(ValueLayout.JAVA_BYTE, i, (byte) (me * 31 + i));
                comm.rma().put(buf, 1000, src, peer); // staging path
                comm.rma().quiet();
                comm.barrier();
                byte[] got = buf.segment().asSlice(1000, 40_000).toArray(ValueLayout.JAVA_BYTE);
                byte[] want = new byte[40_000];
                for (int i = 0; i < want.length; i++) want[i] = (byte) (peer * 31 + i);
                assertArrayEquals(want, got, "PE " + me + " sees what PE " + peer + " put");
                MemorySegment back = arena.allocate(40_000);
                comm.rma().get(back, buf, 1000, peer); // reads its own bytes back from the peer
                assertArrayEquals(src.toArray(ValueLayout.JAVA_BYTE), back.toArray(ValueLayout.JAVA_BYTE));
                comm.rma().getNbi(Memory.of(back), 0, buf, 1000, 8, me); // loopback to self, completed by quiet
                comm.rma().putNbi(buf, 0, Memory.of(buf.segment()), 1000, 16, peer); // heap-registered source
                comm.rma().quiet();
                assertEquals(buf.segment().get(ValueLayout.JAVA_LONG, 1000), back.get(ValueLayout.JAVA_LONG, 0));
                comm.barrier();
            }
        });
    }

    @Test
    void putWithSignalIsSeenAfterItsData() throws Exception {
        job(comm -> {
            int me = comm.rank();
            try (SymmetricBuffer data = comm.heap().allocate(256 * 1024);
                    SymmetricBuffer sig = comm.heap().allocate(64);
                    Arena arena = Arena.ofConfined()) {
                if (me == 0) {
                    MemorySegment src = arena.allocate(256 * 1024);
                    for (int round = 1; round <= 3; round++) {
                        src.fill((byte) round);
                        comm.rma().putSignal(data, 0, Memory.of(src), 0, src.byteSize(), sig, 8, 1, SignalOp.ADD, 1);
                        comm.rma().signalWaitUntil(sig, 0, Cmp.EQ, round); // PE 1 acknowledges each round
                    }
                } else {
                    for (int round = 1; round <= 3; round++) {
                        assertEquals(round, comm.rma().signalWaitUntil(sig, 8, Cmp.GE, round));
                        MemorySegment d = data.segment();
                        assertEquals((byte) round, d.get(ValueLayout.JAVA_BYTE, 0));
                        assertEquals((byte) round, d.get(ValueLayout.JAVA_BYTE, d.byteSize() - 1));
                        comm.rma().atomicSet(sig, 0, round, 0);
                    }
                }
                comm.barrier();
            }
        });
    }

    @Test
    void atomicsFromBothPesAreAtomic() throws Exception {
        job(comm -> {
            try (SymmetricBuffer words = comm.heap().allocate(64)) {
                for (int i = 0; i < 50; i++) comm.rma().atomicAdd(words, 0, 1, 0);
                long before = comm.rma().atomicFetchAdd(words, 8, 10, 1);
                assertTrue(before == 0 || before == 10, "fetch-add returns the previous value, got " + before);
                comm.barrier();
                assertEquals(100, comm.rma().atomicFetch(words, 0, 0));
                assertEquals(20, comm.rma().atomicFetch(words, 8, 1));
                comm.barrier();
                if (comm.rank() == 1) {
                    assertEquals(100, comm.rma().atomicCompareSwap(words, 0, 100, 7, 0));
                    assertEquals(7, comm.rma().atomicCompareSwap(words, 0, 100, 9, 0), "failed CAS leaves the word");
                    assertEquals(7, comm.rma().atomicSwap(words, 0, -5, 0));
                }
                comm.barrier();
                assertEquals(-5, comm.rma().atomicFetch(words, 0, 0));
                var misaligned = assertThrows(
                        IllegalArgumentException.class, () -> comm.rma().atomicAdd(words, 4, 1, 0));
                assertTrue(misaligned.getMessage().contains("aligned"), misaligned.getMessage());
                comm.barrier();
            }
        });
    }

    @Test
    void teamsSplitTranslateAndBarrier() throws Exception {
        job(comm -> {
            Team world = comm.world();
            try (Team odd = world.split(1, 1, 1)) {
                assertEquals(comm.rank() == 1 ? 0 : -1, odd.rank());
                assertEquals(1, odd.worldRank(0));
                assertEquals(1, world.translate(1, world));
                assertEquals(0, world.translate(1, odd));
                if (odd.rank() >= 0) odd.barrier();
            }
            Team.Split2d grid = world.split2d(1);
            assertEquals(1, grid.x().size());
            assertEquals(2, grid.y().size());
            grid.y().barrier();
            grid.x().barrier();
            var mismatch = assertThrows(
                    IllegalArgumentException.class, () -> comm.heap().allocate(comm.rank() == 0 ? 64 : 128));
            assertTrue(mismatch.getMessage().contains("mismatch"), mismatch.getMessage());
            comm.barrier();
        });
    }
}
