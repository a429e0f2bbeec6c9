package dev.unicomm.testsupport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.Endpoint;
import dev.unicomm.api.EndpointOptions;
import dev.unicomm.api.Endpoints;
import dev.unicomm.api.Memory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.CompletableFuture;

/**
 * Two connected endpoints of one backend in this process, each with a {@link #SIZE}-byte region {@code "buf"}: the
 * fixture of the backends' endpoint tests, and the checks every backend's endpoints must pass alike (each test adds
 * what is its backend's own).
 */
public final class EndpointPair implements AutoCloseable {
    /** Bytes of each endpoint's region {@code "buf"}. */
    public static final int SIZE = 1 << 20;

    private final Arena arena = Arena.ofShared();
    /** The regions {@code "buf"} of {@link #a} and {@link #b}. */
    public final MemorySegment segA, segB;
    /** {@code a} opened with the caller's options; {@code b} the same but event-driven (no busy polling). */
    public final Endpoint a, b;

    /** Opens, registers and connects both endpoints; closes what it opened if a step fails. */
    public EndpointPair(Endpoints endpoints, EndpointOptions options) {
        Endpoint first = null, second = null;
        try {
            segA = arena.allocate(SIZE, 4096);
            segB = arena.allocate(SIZE, 4096);
            first = endpoints.open(options);
            second = endpoints.open(options.withBusyPoll(false));
            first.registerRegion("buf", Memory.of(segA));
            second.registerRegion("buf", Memory.of(segB));
            second.connect(first.localInfo());
            first.connect(second.localInfo());
        } catch (RuntimeException | Error e) {
            if (first != null) first.close();
            if (second != null) second.close();
            arena.close();
            throw e;
        }
        a = first;
        b = second;
    }

    /** More page-aligned memory that lives as long as the pair (for regions registered later). */
    public MemorySegment allocate(long bytes) {
        return arena.allocate(bytes, 4096);
    }

    /** Writes a pattern of {@code n} bytes at {@code off} of {@code s}, distinct per {@code seed}. */
    public static void fill(MemorySegment s, long off, int n, int seed) {
        for (int i = 0; i < n; i++) s.set(ValueLayout.JAVA_BYTE, off + i, (byte) (seed + i * 7));
    }

    /** {@code n} bytes at {@code off} of {@code s}. */
    public static byte[] bytes(MemorySegment s, long off, int n) {
        return s.asSlice(off, n).toArray(ValueLayout.JAVA_BYTE);
    }

    /**
     * 600 blocks of 512 bytes written in one batch, in reversed order on the peer (more than one chunk of outstanding
     * requests), then three 8 KiB blocks read back: every byte lands where it was sent.
     */
    public void checkBatchedWriteAndRead() {
        int block = 512, n = 600;
        long[] remote = new long[n], local = new long[n];
        for (int i = 0; i < n; i++) {
            local[i] = (long) i * block;
            remote[i] = SIZE / 2 + (long) (n - 1 - i) * block; // reversed order on the peer
        }
        fill(segA, 0, n * block, 3);
        a.write("buf", remote, local, block);
        for (int i = 0; i < n; i++)
            assertArrayEquals(bytes(segA, local[i], block), bytes(segB, remote[i], block), "block " + i);
        fill(segB, 0, 64 * 1024, 11);
        a.read("buf", new long[] {0, 8192, 16384}, new long[] {SIZE - 3 * 8192, SIZE - 2 * 8192, SIZE - 8192}, 8192);
        assertArrayEquals(bytes(segB, 0, 3 * 8192), bytes(segA, SIZE - 3 * 8192, 3 * 8192));
    }

    /** A write with an immediate completes the peer's posted receive with the immediate, the bytes in place. */
    public void checkWriteWithImmediate() {
        CompletableFuture<Endpoint.Received> r = b.recv("buf", 0, 64);
        fill(segA, 4096, 512, 5);
        a.await(a.writeWithImm("buf", 8192, 4096, 512, 0xC0FFEE));
        Endpoint.Received got = b.await(r);
        assertEquals(512, got.bytes());
        assertEquals(0xC0FFEE, got.immediate().orElseThrow());
        assertArrayEquals(bytes(segA, 4096, 512), bytes(segB, 8192, 512));
    }

    /** A region both sides register after connecting is unknown to the writer until {@code updateRemote}. */
    public void checkRegionRegisteredLater() {
        MemorySegment extraB = allocate(4096), extraA = allocate(4096);
        b.registerRegion("late", Memory.of(extraB));
        a.registerRegion("late", Memory.of(extraA));
        var unknown = assertThrows(
                IllegalArgumentException.class, () -> a.writeBatch("late", new long[] {0}, new long[] {0}, 8));
        assertTrue(unknown.getMessage().contains("updateRemote"), unknown.getMessage());
        a.updateRemote(b.localInfo());
        extraA.set(ValueLayout.JAVA_LONG, 0, 42L);
        a.write("late", new long[] {0}, new long[] {0}, 8);
        assertEquals(42L, extraB.get(ValueLayout.JAVA_LONG, 0));
    }

    /** Offsets outside a region and an unknown region are refused before anything is posted, each saying which. */
    public void checkRangesAndNamesRefused() {
        var noRegion = assertThrows(
                IllegalArgumentException.class, () -> a.readBatch("nope", new long[] {0}, new long[] {0}, 8));
        assertTrue(noRegion.getMessage().contains("no local region 'nope'"), noRegion.getMessage());
        var remoteRange = assertThrows(
                IndexOutOfBoundsException.class, () -> a.writeBatch("buf", new long[] {SIZE - 4}, new long[] {0}, 8));
        assertTrue(
                remoteRange.getMessage().contains("remote")
                        && remoteRange.getMessage().contains(SIZE + " bytes"),
                remoteRange.getMessage());
        assertThrows(IndexOutOfBoundsException.class, () -> a.readBatch("buf", new long[] {0}, new long[] {-1}, 8));
        assertThrows(IllegalArgumentException.class, () -> a.readBatch("buf", new long[] {0, 8}, new long[] {0}, 8));
        assertThrows(IllegalArgumentException.class, () -> a.readBatch("buf", new long[] {0}, new long[] {0}, 0));
    }

    /**
     * A second connect, a duplicate or non-native region, an unregistered or freed region are refused, each saying
     * why; then {@code a} has no region {@code "buf"} any more.
     */
    public void checkMisuseRefused() {
        var twice = assertThrows(IllegalStateException.class, () -> a.connect(b.localInfo()));
        assertTrue(twice.getMessage().contains("already connected"), twice.getMessage());
        assertThrows(IllegalArgumentException.class, () -> a.registerRegion("buf", Memory.of(segA)), "duplicate name");
        assertThrows(
                IllegalArgumentException.class,
                () -> a.registerRegion("heap", Memory.of(MemorySegment.ofArray(new byte[64]))));
        a.unregisterRegion("buf");
        assertThrows(
                IllegalArgumentException.class,
                () -> a.writeBatch("buf", new long[] {0}, new long[] {0}, 8),
                "unregistered");
        Arena gone = Arena.ofConfined();
        a.registerRegion("freed", Memory.of(gone.allocate(4096, 4096)));
        gone.close();
        var freed = assertThrows(IllegalStateException.class, () -> a.send("freed", 0, 8));
        assertTrue(freed.getMessage().contains("freed"), freed.getMessage());
    }

    /** {@code lonely}, a fresh endpoint given a region but no peer, refuses to send, saying it is not connected. */
    public void checkUnconnectedRefuses(Endpoint lonely) {
        lonely.registerRegion("buf", Memory.of(segA));
        var notConnected = assertThrows(IllegalStateException.class, () -> lonely.send("buf", 0, 8));
        assertTrue(notConnected.getMessage().contains("not connected"), notConnected.getMessage());
    }

    /** Closes both endpoints (closing twice is allowed) and frees the regions. */
    @Override
    public void close() {
        try {
            a.close();
            b.close();
        } finally {
            arena.close();
        }
    }
}
