package dev.unicomm.backend.shm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.Capability;
import dev.unicomm.api.Cmp;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.Memory;
import dev.unicomm.api.OutOfSymmetricMemoryException;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Unicomm;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** One PE, opened through {@link Unicomm#connect}: the backend as users see it, and bad input. */
class SingleRankTest {
    @TempDir
    Path dir;

    Communicator comm;

    @BeforeEach
    void open() {
        comm = Unicomm.connect(ShmJobs.singleRank(dir));
    }

    @AfterEach
    void close() {
        comm.close();
    }

    @Test
    void isTheShmBackendWithItsCapabilities() {
        assertEquals("shm", comm.backend().name());
        assertEquals(dev.unicomm.spi.BackendPriority.HOST, comm.backend().priority());
        for (Capability c : new Capability[] {
            Capability.RMA,
            Capability.NONBLOCKING_RMA,
            Capability.ATOMICS,
            Capability.SIGNALS,
            Capability.TEAMS,
            Capability.DIRECT_PEER_ACCESS,
            Capability.MULTI_PROCESS
        }) assertTrue(comm.has(c), c.name());
        assertFalse(comm.has(Capability.DEVICE_MEMORY_CUDA));
        assertEquals(1 << 20, comm.heap().capacity());
    }

    @Test
    void putGetAndPeerViewSeeTheSameBytes() {
        try (SymmetricBuffer buf = comm.heap().allocate(4096)) {
            byte[] data = new byte[100];
            for (int i = 0; i < data.length; i++) data[i] = (byte) (i * 7);
            comm.rma().put(buf, 10, MemorySegment.ofArray(data), 0);
            comm.rma().quiet();
            byte[] back = new byte[100];
            comm.rma().get(MemorySegment.ofArray(back), buf, 10, 0);
            assertArrayEquals(data, back);
            assertEquals((byte) 7, buf.peer(0).orElseThrow().get(ValueLayout.JAVA_BYTE, 11));
            assertEquals((byte) 7, buf.segment().get(ValueLayout.JAVA_BYTE, 11));
        }
    }

    @Test
    void nonBlockingPutAndGetCompleteByQuiet() {
        try (SymmetricBuffer buf = comm.heap().allocate(64);
                Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(32);
            for (int i = 0; i < 32; i++) src.set(ValueLayout.JAVA_BYTE, i, (byte) (100 + i));
            comm.rma().putNbi(buf, 16, Memory.of(src), 8, 24, 0);
            comm.rma().quiet();
            MemorySegment dst = arena.allocate(24);
            comm.rma().getNbi(Memory.of(dst), 0, buf, 16, 24, 0);
            comm.rma().quiet();
            for (int i = 0; i < 24; i++) assertEquals((byte) (108 + i), dst.get(ValueLayout.JAVA_BYTE, i));
            assertEquals(0, buf.segment().get(ValueLayout.JAVA_BYTE, 15), "bytes outside the range are untouched");
        }
    }

    @Test
    void newBuffersReadAsZeroEvenWhenMemoryIsReused() {
        SymmetricBuffer a = comm.heap().allocate(256);
        a.segment().fill((byte) 0x5a);
        long off = a.offset();
        a.close();
        try (SymmetricBuffer b = comm.heap().allocate(256)) {
            assertEquals(off, b.offset(), "first fit reuses the freed block");
            for (long i = 0; i < 256; i++) assertEquals(0, b.segment().get(ValueLayout.JAVA_BYTE, i));
        }
    }

    @Test
    void atomicsAndSignalsOnTheHeap() {
        try (SymmetricBuffer buf = comm.heap().allocate(64)) {
            var rma = comm.rma();
            assertEquals(0, rma.atomicFetchAdd(buf, 8, 5, 0));
            rma.atomicAdd(buf, 8, 2, 0);
            assertEquals(7, rma.atomicFetch(buf, 8, 0));
            assertEquals(7, rma.atomicCompareSwap(buf, 8, 7, 100, 0));
            assertEquals(100, rma.atomicCompareSwap(buf, 8, 7, 200, 0), "a failed CAS returns the current value");
            assertEquals(100, rma.atomicSwap(buf, 8, -1, 0));
            rma.atomicSet(buf, 8, 42, 0);
            assertEquals(42, rma.atomicFetch(buf, 8, 0));
            byte[] payload = {1, 2, 3};
            rma.putSignal(buf, 32, Memory.of(MemorySegment.ofArray(payload)), 0, 3, buf, 16, 9, SignalOp.SET, 0);
            rma.putSignalNbi(buf, 40, Memory.of(MemorySegment.ofArray(payload)), 0, 3, buf, 16, 1, SignalOp.ADD, 0);
            assertEquals(10, rma.signalWaitUntil(buf, 16, Cmp.GE, 10));
            assertEquals(10, rma.signalFetch(buf, 16));
            assertEquals(3, buf.segment().get(ValueLayout.JAVA_BYTE, 42));
        }
    }

    @Test
    void signalWaitTimesOutInsteadOfHanging() {
        try (SymmetricBuffer buf = comm.heap().allocate(64)) {
            long t0 = System.nanoTime();
            var e = assertThrows(CommTimeoutException.class, () -> comm.rma().signalWaitUntil(buf, 0, Cmp.EQ, 1));
            assertTrue(e.getMessage().contains("signal wait until"), e.getMessage());
            assertTrue(System.nanoTime() - t0 >= Duration.ofSeconds(2).toNanos());
        }
    }

    @Test
    void exhaustionIsOutOfSymmetricMemory() {
        try (SymmetricBuffer big = comm.heap().allocate(900 << 10)) {
            var e = assertThrows(
                    OutOfSymmetricMemoryException.class, () -> comm.heap().allocate(200 << 10));
            assertTrue(e.getMessage().contains("asked for 204800 bytes"), e.getMessage());
            assertEquals(900 << 10, comm.heap().used());
        }
        assertEquals(0, comm.heap().used());
    }

    @Test
    void badInputGetsClearExceptions() {
        SymmetricBuffer buf = comm.heap().allocate(64);
        MemorySegment src = Arena.ofAuto().allocate(16);
        var rma = comm.rma();
        var pe = assertThrows(IndexOutOfBoundsException.class, () -> rma.put(buf, 0, src, 1));
        assertTrue(pe.getMessage().contains("PE 1 is out of range"), pe.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> rma.put(buf, 0, src, -1));
        var range = assertThrows(IndexOutOfBoundsException.class, () -> rma.put(buf, 56, src, 0));
        assertTrue(range.getMessage().contains("outside the 64-byte memory"), range.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> rma.get(MemorySegment.ofArray(new byte[16]), buf, -8, 0));
        var mis = assertThrows(IllegalArgumentException.class, () -> rma.atomicFetchAdd(buf, 4, 1, 0));
        assertTrue(mis.getMessage().contains("not 8-byte aligned"), mis.getMessage());
        assertThrows(IllegalArgumentException.class, () -> rma.signalWaitUntil(buf, 12, Cmp.EQ, 0));
        assertThrows(IndexOutOfBoundsException.class, () -> rma.atomicFetch(buf, 64, 0));
        var align =
                assertThrows(IllegalArgumentException.class, () -> comm.heap().allocate(64, 3));
        assertTrue(align.getMessage().contains("power of two"), align.getMessage());
        assertThrows(IllegalArgumentException.class, () -> comm.heap().allocate(-1));
        MemorySegment kept = buf.segment();
        buf.close();
        var dbl = assertThrows(IllegalStateException.class, buf::close);
        assertTrue(dbl.getMessage().contains("double free"), dbl.getMessage());
        var uaf = assertThrows(IllegalStateException.class, () -> rma.put(buf, 0, src, 0));
        assertTrue(uaf.getMessage().contains("already freed"), uaf.getMessage());
        assertThrows(
                IllegalStateException.class,
                () -> kept.get(ValueLayout.JAVA_BYTE, 0),
                "a segment kept past free cannot touch memory a later allocation owns");
    }

    @Test
    void closedCommunicatorRefusesUseAndItsBuffersDie() {
        SymmetricBuffer buf = comm.heap().allocate(64);
        MemorySegment kept = buf.segment();
        comm.close();
        var e = assertThrows(IllegalStateException.class, () -> comm.rma().quiet());
        assertTrue(e.getMessage().contains("is closed"), e.getMessage());
        assertThrows(IllegalStateException.class, comm::barrier);
        assertThrows(IllegalStateException.class, () -> comm.heap().allocate(8));
        assertThrows(IllegalStateException.class, () -> kept.get(ValueLayout.JAVA_BYTE, 0));
        assertFalse(buf.isOpen());
    }

    @Test
    void noFilesAreLeftBehindAndReopeningWorks() throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(0, files.count(), "heap files are unlinked once every PE has mapped them");
        }
        comm.close();
        for (int i = 0; i < 3; i++) {
            try (Communicator again = Unicomm.connect(ShmJobs.singleRank(dir))) {
                try (SymmetricBuffer b = again.heap().allocate(8)) {
                    again.rma().atomicAdd(b, 0, 1, 0);
                }
            }
        }
        try (Stream<Path> files = Files.list(dir)) {
            assertEquals(0, files.count());
        }
    }

    @Test
    void openCloseCyclesLeaveNoMappingBehind() throws Exception {
        comm.close();
        for (int i = 0; i < 10; i++) {
            try (Communicator again = Unicomm.connect(ShmJobs.singleRank(dir))) {
                again.heap().allocate(4096); // left open on purpose: closing the communicator releases it
                assertTrue(heapMappings() > 0, "while open, the heap is mapped");
            }
        }
        assertEquals(0, heapMappings(), "every mapping is gone once the communicators are closed");
    }

    /** Lines of /proc/self/maps that map one of this test's heap files. */
    private long heapMappings() throws java.io.IOException {
        try (Stream<String> maps = Files.lines(Path.of("/proc/self/maps"))) {
            return maps.filter(l -> l.contains(dir.toString()) && l.contains(SegmentFiles.PREFIX))
                    .count();
        }
    }

    @Test
    void worldTeamAndSplitsOfOne() {
        var world = comm.world();
        assertEquals(0, world.rank());
        assertEquals(1, world.size());
        world.barrier();
        try (var t = world.split(0, 1, 1)) {
            assertEquals(0, t.rank());
            assertEquals(0, t.worldRank(0));
            t.barrier();
        }
        assertThrows(IllegalStateException.class, world::close);
    }

    @Test
    void streamViewRunsInProgramOrderAfterTheStream() {
        int[] syncs = {0};
        var stream = new dev.unicomm.api.Stream() {
            @Override
            public long handle() {
                return 0;
            }

            @Override
            public void synchronize() {
                syncs[0]++;
            }

            @Override
            public boolean isOpen() {
                return true;
            }

            @Override
            public void close() {}
        };
        try (SymmetricBuffer buf = comm.heap().allocate(64)) {
            var onStream = comm.rma().on(stream);
            onStream.atomicAdd(buf, 0, 3, 0);
            onStream.quiet();
            assertEquals(3, comm.rma().atomicFetch(buf, 0, 0));
            assertEquals(2, syncs[0], "each operation waits for the stream's earlier work");
        }
    }
}
