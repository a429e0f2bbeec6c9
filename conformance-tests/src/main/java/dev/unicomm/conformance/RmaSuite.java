package dev.unicomm.conformance;

import dev.unicomm.api.Capability;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.Memory;
import dev.unicomm.api.SymmetricBuffer;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.Test;

/** One-sided put/get: every size class, unaligned offsets, completion (quiet, barrier) and ordering (fence). */
public abstract class RmaSuite extends KitSuite {

    /** Size classes: zero, tiny and odd, around cache lines and pages, and megabytes. */
    static final long[] SIZES = {
        0,
        1,
        2,
        3,
        4,
        5,
        7,
        8,
        9,
        15,
        16,
        17,
        31,
        32,
        33,
        63,
        64,
        65,
        127,
        128,
        129,
        255,
        256,
        1000,
        1023,
        1024,
        4095,
        4096,
        4097,
        65535,
        65536,
        65537,
        (1 << 20) - 1,
        1 << 20,
        (1 << 20) + 13,
        4 << 20
    };

    private static final byte GUARD = (byte) 0xEE;

    /** Slot offsets for {@link #SIZES} with at least one guard byte after each, 64-aligned. */
    static long[] slots() {
        long[] off = new long[SIZES.length + 1];
        for (int i = 0; i < SIZES.length; i++) off[i + 1] = (off[i] + SIZES[i] + 1 + 63) & ~63L;
        return off;
    }

    static int right(Communicator c) {
        return (c.rank() + 1) % c.size();
    }

    static int left(Communicator c) {
        return (c.rank() + c.size() - 1) % c.size();
    }

    /** Verifies §2.1: a put of every size class delivers exactly its bytes / if it fails, look at the put path's size thresholds (inline, bounce buffer, chunking). */
    @Verifies("2.1")
    @Test
    void required_rma_put_all_sizes() {
        spmd(pe -> {
            Communicator c = pe.comm();
            long[] off = slots();
            try (SymmetricBuffer b = c.heap().allocate(off[SIZES.length])) {
                Mem.clear(c, b, GUARD);
                c.barrier();
                for (int i = 0; i < SIZES.length; i++)
                    c.rma()
                            .put(
                                    b,
                                    off[i],
                                    Memory.of(Mem.patterned(SIZES[i], c.rank() * 100 + i)),
                                    0,
                                    SIZES[i],
                                    right(c));
                c.rma().quiet();
                c.barrier();
                for (int i = 0; i < SIZES.length; i++) {
                    Mem.expectPattern(
                            Mem.read(c, b, off[i], SIZES[i]),
                            left(c) * 100 + i,
                            "put of " + SIZES[i] + " bytes from rank " + left(c));
                    Mem.expectFilled(
                            Mem.read(c, b, off[i] + SIZES[i], off[i + 1] - off[i] - SIZES[i]),
                            GUARD,
                            "bytes after the put of " + SIZES[i]);
                }
                c.barrier();
            }
        });
    }

    /** Verifies §2.1: a get of every size class fills exactly its bytes / if it fails, look at the get path's size thresholds. */
    @Verifies("2.1")
    @Test
    void required_rma_get_all_sizes() {
        spmd(pe -> {
            Communicator c = pe.comm();
            long[] off = slots();
            try (SymmetricBuffer b = c.heap().allocate(off[SIZES.length])) {
                for (int i = 0; i < SIZES.length; i++)
                    Mem.write(c, b, off[i], Mem.patterned(SIZES[i], c.rank() * 100 + i));
                c.barrier();
                for (int i = 0; i < SIZES.length; i++) {
                    MemorySegment dst = MemorySegment.ofArray(new byte[Math.toIntExact(SIZES[i] + 8)]);
                    dst.fill(GUARD);
                    c.rma().get(Memory.of(dst), 0, b, off[i], SIZES[i], right(c));
                    Mem.expectPattern(
                            dst.asSlice(0, SIZES[i]),
                            right(c) * 100 + i,
                            "get of " + SIZES[i] + " bytes from rank " + right(c));
                    Mem.expectFilled(dst.asSlice(SIZES[i]), GUARD, "local bytes after the get of " + SIZES[i]);
                }
                c.barrier();
            }
        });
    }

    /** Verifies §2.1: puts at odd offsets and lengths touch nothing outside their range / if it fails, look at offset arithmetic and alignment assumptions in put. */
    @Verifies("2.1")
    @Test
    void required_rma_put_unaligned() {
        spmd(pe -> {
            Communicator c = pe.comm();
            long[] dstOffs = {1, 3, 5, 7, 13, 61};
            long[] lens = {1, 7, 13, 100, 4099};
            long[] srcOffs = {0, 1, 3, 5, 7, 9};
            long stride = 8192;
            try (SymmetricBuffer b = c.heap().allocate(stride * dstOffs.length * lens.length)) {
                Mem.clear(c, b, GUARD);
                c.barrier();
                int k = 0;
                for (int i = 0; i < dstOffs.length; i++) {
                    for (long len : lens) {
                        long srcOff = srcOffs[k % srcOffs.length];
                        c.rma()
                                .put(
                                        b,
                                        k * stride + dstOffs[i],
                                        Memory.of(Mem.patterned(srcOff + len, c.rank() * 50 + k)),
                                        srcOff,
                                        len,
                                        right(c));
                        k++;
                    }
                }
                c.rma().quiet();
                c.barrier();
                k = 0;
                for (int i = 0; i < dstOffs.length; i++) {
                    for (long len : lens) {
                        long srcOff = srcOffs[k % srcOffs.length];
                        MemorySegment expected =
                                Mem.patterned(srcOff + len, left(c) * 50 + k).asSlice(srcOff, len);
                        String what =
                                "put of " + len + " bytes from source offset " + srcOff + " to offset " + dstOffs[i];
                        Mem.expectEqual(Mem.read(c, b, k * stride + dstOffs[i], len), expected, what);
                        Mem.expectFilled(Mem.read(c, b, k * stride, dstOffs[i]), GUARD, "bytes before the " + what);
                        Mem.expectFilled(
                                Mem.read(c, b, k * stride + dstOffs[i] + len, 8), GUARD, "bytes after the " + what);
                        k++;
                    }
                }
                c.barrier();
            }
        });
    }

    /** Verifies §2.1: gets at odd offsets and lengths fill exactly their range / if it fails, look at offset arithmetic and alignment assumptions in get. */
    @Verifies("2.1")
    @Test
    void required_rma_get_unaligned() {
        spmd(pe -> {
            Communicator c = pe.comm();
            long[] srcOffs = {1, 3, 5, 7, 13, 61};
            long[] lens = {1, 7, 13, 100, 4099};
            long[] dstOffs = {0, 1, 3, 5, 7, 9};
            try (SymmetricBuffer b = c.heap().allocate(8192)) {
                Mem.write(c, b, 0, Mem.patterned(8192, 70 + c.rank()));
                c.barrier();
                MemorySegment expectedAll = Mem.patterned(8192, 70 + right(c));
                int k = 0;
                for (long srcOff : srcOffs) {
                    for (long len : lens) {
                        long dstOff = dstOffs[k++ % dstOffs.length];
                        MemorySegment dst = MemorySegment.ofArray(new byte[Math.toIntExact(dstOff + len + 8)]);
                        dst.fill(GUARD);
                        c.rma().get(Memory.of(dst), dstOff, b, srcOff, len, right(c));
                        String what = "get of " + len + " bytes from offset " + srcOff + " into local offset " + dstOff;
                        Mem.expectEqual(dst.asSlice(dstOff, len), expectedAll.asSlice(srcOff, len), what);
                        Mem.expectFilled(dst.asSlice(0, dstOff), GUARD, "local bytes before the " + what);
                        Mem.expectFilled(dst.asSlice(dstOff + len), GUARD, "local bytes after the " + what);
                    }
                }
                c.barrier();
            }
        });
    }

    /** Verifies §2.1: zero-byte puts and gets touch nothing, even at a buffer's end / if it fails, look at range checks that reject or mishandle length 0. */
    @Verifies("2.1")
    @Test
    void required_rma_zero_byte_transfers() {
        spmd(pe -> {
            Communicator c = pe.comm();
            try (SymmetricBuffer b = c.heap().allocate(256)) {
                Mem.clear(c, b, GUARD);
                c.barrier();
                MemorySegment src = Mem.patterned(16, 1);
                c.rma().put(b, 0, Memory.of(src), 0, 0, right(c));
                c.rma().put(b, 256, Memory.of(src), 16, 0, right(c)); // at the very end: allowed, touches nothing
                MemorySegment dst = MemorySegment.ofArray(new byte[16]);
                dst.fill(GUARD);
                c.rma().get(Memory.of(dst), 16, b, 256, 0, right(c));
                c.rma().quiet();
                c.barrier();
                Mem.expectFilled(Mem.read(c, b, 0, 256), GUARD, "target of zero-byte puts");
                Mem.expectFilled(dst, GUARD, "destination of a zero-byte get");
                c.barrier();
            }
        });
    }

    /** Verifies §2.8: puts and gets to the calling PE itself work / if it fails, look at the loopback path (target PE == own rank). */
    @Verifies("2.8")
    @Test
    void required_rma_put_get_self() {
        spmd(pe -> {
            Communicator c = pe.comm();
            try (SymmetricBuffer b = c.heap().allocate(70_000)) {
                c.rma().put(b, 3, Memory.of(Mem.patterned(65_537, 11)), 0, 65_537, c.rank());
                c.rma().quiet();
                Mem.expectPattern(Mem.read(c, b, 3, 65_537), 11, "put to own rank");
                MemorySegment back = MemorySegment.ofArray(new byte[65_537]);
                c.rma().get(Memory.of(back), 0, b, 3, 65_537, c.rank());
                Mem.expectPattern(back, 11, "get from own rank");
                c.barrier();
            }
        });
    }

    /** Verifies §2.1: every PE puts to every PE at once without interference / if it fails, look at per-target state (queues, connections) shared between targets. */
    @Verifies("2.1")
    @Test
    void required_rma_put_all_to_all() {
        spmd(pe -> {
            Communicator c = pe.comm();
            int n = c.size();
            long slot = 4099;
            try (SymmetricBuffer b = c.heap().allocate(slot * n)) {
                for (int p = 0; p < n; p++)
                    c.rma().put(b, slot * c.rank(), Memory.of(Mem.patterned(slot, c.rank() * 31 + p)), 0, slot, p);
                c.rma().quiet();
                c.barrier();
                for (int r = 0; r < n; r++)
                    Mem.expectPattern(Mem.read(c, b, slot * r, slot), r * 31 + c.rank(), "slot written by rank " + r);
                c.barrier();
            }
        });
    }

    /** Verifies §2.8: native segments and symmetric buffers work as local source and destination / if it fails, look at acceptsLocal and local memory registration. */
    @Verifies("2.8")
    @Test
    void required_rma_native_and_symmetric_local_memory() {
        spmd(pe -> {
            Communicator c = pe.comm();
            try (Arena arena = Arena.ofConfined();
                    SymmetricBuffer b = c.heap().allocate(3 * 4096);
                    SymmetricBuffer local = c.heap().allocate(4096)) {
                MemorySegment nat = arena.allocate(4096, 1);
                Mem.fill(nat, 200 + c.rank());
                c.rma().put(b, 0, Memory.of(nat), 0, 4096, right(c));
                Mem.write(c, local, 0, Mem.patterned(4096, 300 + c.rank()));
                c.rma().put(b, 4096, local, 0, 4096, right(c)); // a symmetric buffer as the local source
                c.rma().quiet();
                c.barrier();
                Mem.expectPattern(Mem.read(c, b, 0, 4096), 200 + left(c), "put from a native segment");
                Mem.expectPattern(Mem.read(c, b, 4096, 4096), 300 + left(c), "put from a symmetric buffer");
                MemorySegment natDst = arena.allocate(4096, 1);
                c.rma().get(Memory.of(natDst), 0, b, 0, 4096, right(c));
                Mem.expectPattern(natDst, 200 + c.rank(), "get into a native segment");
                c.rma().get(local, 0, b, 4096, 4096, right(c)); // a symmetric buffer as the local destination
                Mem.expectPattern(Mem.read(c, local, 0, 4096), 300 + c.rank(), "get into a symmetric buffer");
                c.barrier();
            }
        });
    }

    /** Verifies §2.2: a blocking put's source may be overwritten as soon as put returns / if it fails, look at put returning before it copied or sent the source. */
    @Verifies("2.2")
    @Test
    void required_rma_put_source_reusable_on_return() {
        spmd(pe -> {
            Communicator c = pe.comm();
            try (SymmetricBuffer b = c.heap().allocate(1 << 16)) {
                MemorySegment src = Mem.patterned(1 << 16, 17 + c.rank());
                c.rma().put(b, 0, Memory.of(src), 0, 1 << 16, right(c));
                src.fill((byte) 0); // a blocking put must have taken the data already
                c.rma().quiet();
                c.barrier();
                Mem.expectPattern(
                        Mem.read(c, b, 0, 1 << 16), 17 + left(c), "target after the source was overwritten on return");
                c.barrier();
            }
        });
    }

    /** Verifies §2.5: the world barrier completes outstanding puts / if it fails, look at Communicator.barrier: it must quiet before synchronising. */
    @Verifies("2.5")
    @Test
    void required_rma_barrier_completes_puts() {
        spmd(pe -> {
            Communicator c = pe.comm();
            try (SymmetricBuffer b = c.heap().allocate(1 << 18)) {
                for (int round = 0; round < 5; round++) {
                    c.rma().put(b, 0, Memory.of(Mem.patterned(1 << 18, round * 10 + c.rank())), 0, 1 << 18, right(c));
                    c.barrier(); // no quiet: the barrier completes outstanding puts
                    Mem.expectPattern(
                            Mem.read(c, b, 0, 1 << 18), round * 10 + left(c), "round " + round + " after barrier only");
                    c.barrier();
                }
            }
        });
    }

    /** Verifies §2.3 (quiet completes puts at the target) / if it fails, look at quiet: it must wait for remote delivery, not only order. */
    @Verifies("2.3")
    @Test
    void required_rma_quiet_completes_puts() {
        spmd(pe -> quietCompletes(pe, false));
    }

    /** Verifies §2.3 for non-blocking puts / if it fails, look at quiet's tracking of outstanding putNbi. */
    @Verifies("2.3")
    @Test
    void optional_rma_quiet_completes_put_nbi() {
        spmd(Capability.NONBLOCKING_RMA, pe -> quietCompletes(pe, true));
    }

    /**
     * Puts to the right neighbour, quiets, then reads the same bytes back with a get, with no barrier in
     * between: after quiet the put is complete at the target, so even the issuing PE must see it.
     */
    static void quietCompletes(Pe pe, boolean nbi) {
        Communicator c = pe.comm();
        long n = 1 << 16;
        try (SymmetricBuffer b = c.heap().allocate(n)) {
            Mem.clear(c, b, GUARD);
            c.barrier();
            for (int round = 0; round < 5; round++) {
                MemorySegment src = Mem.patterned(n, round * 10 + c.rank());
                if (nbi) c.rma().putNbi(b, 0, Memory.of(src), 0, n, right(c));
                else c.rma().put(b, 0, Memory.of(src), 0, n, right(c));
                c.rma().quiet();
                MemorySegment back = MemorySegment.ofArray(new byte[(int) n]);
                c.rma().get(Memory.of(back), 0, b, 0, n, right(c));
                Mem.expectPattern(
                        back,
                        round * 10 + c.rank(),
                        "round " + round + ": get from rank " + right(c)
                                + " right after quiet (quiet must complete the put at the target, not only order it)");
            }
            c.barrier();
        }
    }

    /** Verifies §2.6 (a team barrier completes the caller's RMA) / if it fails, look at Team.barrier: it must quiet first. */
    @Verifies("2.6")
    @Test
    void required_rma_world_team_barrier_completes_puts() {
        spmd(pe -> {
            Communicator c = pe.comm();
            try (SymmetricBuffer b = c.heap().allocate(1 << 16)) {
                for (int round = 0; round < 5; round++) {
                    c.rma().put(b, 0, Memory.of(Mem.patterned(1 << 16, round * 10 + c.rank())), 0, 1 << 16, right(c));
                    c.world().barrier(); // no quiet: the team barrier completes outstanding puts
                    Mem.expectPattern(
                            Mem.read(c, b, 0, 1 << 16),
                            round * 10 + left(c),
                            "round " + round + " after a world-team barrier only");
                    c.world().barrier();
                }
            }
        });
    }

    /**
     * Verifies §2.1 (a put delivers every byte, each at its own offset) / if it fails, look at how a put is
     * split into chunks or packets: the first wrong 8-byte word is printed with the index it holds.
     */
    @Verifies("2.1")
    @Test
    void required_rma_put_keeps_byte_order() {
        spmd(pe -> {
            Communicator c = pe.comm();
            long[] lens = {(1 << 20) + 13, 4L << 20};
            try (SymmetricBuffer b = c.heap().allocate((4L << 20) + 64)) {
                for (long len : lens) {
                    Mem.clear(c, b, GUARD);
                    c.barrier();
                    c.rma().put(b, 8, Memory.of(Mem.indexed(len, c.rank() + 1)), 0, len, right(c));
                    c.rma().quiet();
                    c.barrier();
                    Mem.expectIndexed(
                            Mem.read(c, b, 8, len), left(c) + 1, "put of " + len + " bytes from rank " + left(c));
                    Mem.expectFilled(Mem.read(c, b, 8 + len, 8), GUARD, "bytes after the put of " + len);
                    c.barrier();
                }
            }
        });
    }

    /** Verifies §2.3: data put before a quiet is visible before a flag put after it / if it fails, look at quiet's completion of earlier puts. */
    @Verifies("2.3")
    @Test
    void required_rma_quiet_orders_puts() {
        spmd(pe -> handshake(pe, false));
    }

    /** Verifies §2.4: data put before a fence is visible before a flag put after it / if it fails, look at fence: puts to one PE must not overtake each other across it. */
    @Verifies("2.4")
    @Test
    void required_rma_fence_orders_puts() {
        spmd(pe -> handshake(pe, true));
    }

    /**
     * Writer puts data, then quiet or fence, then a flag; the reader waits for the flag and must then
     * see the whole data. An acknowledgement goes back before the next round reuses the data area.
     */
    static void handshake(Pe pe, boolean fence) {
        Communicator c = pe.comm();
        long data = 1 << 16;
        try (SymmetricBuffer b = c.heap().allocate(data + 128)) {
            long flagAt = data, ackAt = data + 64;
            Mem.write(c, b, flagAt, Mem.longs(-1));
            Mem.write(c, b, ackAt, Mem.longs(-1));
            c.barrier();
            for (long round = 0; round < 20; round++) {
                c.rma().put(b, 0, Memory.of(Mem.patterned(data, (int) round * 7 + c.rank())), 0, data, right(c));
                if (fence) c.rma().fence();
                else c.rma().quiet();
                c.rma().put(b, flagAt, Memory.of(Mem.longs(round)), 0, 8, right(c));
                c.rma().quiet();
                long r = round;
                Mem.awaitLong(
                        c,
                        b,
                        flagAt,
                        v -> v == r,
                        v -> v == r - 1 || v == -1,
                        pe.timeout(),
                        "round " + round + " flag from rank " + left(c));
                Mem.expectPattern(
                        Mem.read(c, b, 0, data),
                        (int) round * 7 + left(c),
                        "round " + round + ": data seen after its flag (" + (fence ? "fence" : "quiet")
                                + " must order the data before the flag)");
                c.rma().put(b, ackAt, Memory.of(Mem.longs(round)), 0, 8, left(c));
                c.rma().quiet();
                Mem.awaitLong(
                        c,
                        b,
                        ackAt,
                        v -> v == r,
                        v -> v == r - 1 || v == -1,
                        pe.timeout(),
                        "round " + round + " acknowledgement from rank " + right(c));
            }
            c.barrier();
        }
    }

    /** Verifies §2.4: fence orders puts to each of several PEs / if it fails, look at per-target ordering in fence. */
    @Verifies("2.4")
    @Test
    void required_rma_fence_orders_puts_to_every_pe() {
        spmd(pe -> {
            Communicator c = pe.comm();
            int n = c.size();
            long slot = 1 << 14;
            try (SymmetricBuffer b = c.heap().allocate(slot + 64)) {
                // each rank in turn writes data to every PE, fences once, then flags every PE;
                // the others wait for their flag while it delivers, and must then see its data
                for (int writer = 0; writer < n; writer++) {
                    Mem.write(c, b, slot, Mem.longs(-1));
                    c.barrier();
                    if (c.rank() == writer) {
                        for (int p = 0; p < n; p++)
                            c.rma().put(b, 0, Memory.of(Mem.patterned(slot, writer * 13 + p)), 0, slot, p);
                        c.rma().fence();
                        for (int p = 0; p < n; p++) c.rma().put(b, slot, Memory.of(Mem.longs(writer)), 0, 8, p);
                        c.rma().quiet();
                    }
                    long w = writer;
                    Mem.awaitLong(c, b, slot, v -> v == w, v -> v == -1, pe.timeout(), "flag from rank " + writer);
                    Mem.expectPattern(
                            Mem.read(c, b, 0, slot),
                            writer * 13 + c.rank(),
                            "data from rank " + writer + " seen after its fenced flag");
                    c.barrier();
                }
            }
        });
    }

    /** Verifies §2.5: a get from a third PE after a barrier sees puts completed by it / if it fails, look at barrier completion towards PEs other than the getter. */
    @Verifies("2.5")
    @Test
    void required_rma_get_after_barrier_sees_puts() {
        spmd(pe -> {
            Communicator c = pe.comm();
            int n = c.size();
            try (SymmetricBuffer b = c.heap().allocate(8192)) {
                c.rma().put(b, 0, Memory.of(Mem.patterned(8192, 500 + c.rank())), 0, 8192, right(c));
                c.rma().quiet();
                c.barrier();
                // rank r+2's buffer holds what rank r+1 put there
                int far = (c.rank() + 2) % n;
                MemorySegment got = MemorySegment.ofArray(new byte[8192]);
                c.rma().get(Memory.of(got), 0, b, 0, 8192, far);
                Mem.expectPattern(
                        got,
                        500 + (far + n - 1) % n,
                        "get from rank " + far + " of the data rank " + (far + n - 1) % n + " put there");
                c.barrier();
            }
        });
    }

    /** Verifies §2.1: a 16 MiB put and get arrive whole / if it fails, look at chunking and registration limits of large transfers. */
    @Verifies("2.1")
    @Test
    void required_rma_large_transfer() {
        spmd(pe -> {
            Communicator c = pe.comm();
            long n = 16L << 20;
            try (SymmetricBuffer b = c.heap().allocate(n)) {
                c.rma().put(b, 0, Memory.of(Mem.patterned(n, 900 + c.rank())), 0, n, right(c));
                c.rma().quiet();
                c.barrier();
                Mem.expectPattern(Mem.read(c, b, 0, n), 900 + left(c), "16 MiB put");
                MemorySegment got = MemorySegment.ofArray(new byte[(int) n]);
                c.rma().get(Memory.of(got), 0, b, 0, n, right(c));
                Mem.expectPattern(got, 900 + c.rank(), "16 MiB get");
                c.barrier();
            }
        });
    }

    /** Verifies §2.7: many outstanding non-blocking puts complete at quiet / if it fails, look at the tracking of outstanding putNbi. */
    @Verifies("2.7")
    @Test
    void optional_rma_put_nbi_quiet() {
        spmd(Capability.NONBLOCKING_RMA, pe -> {
            Communicator c = pe.comm();
            int count = 64;
            long len = 4096 + 3;
            try (SymmetricBuffer b = c.heap().allocate(len * count)) {
                for (int i = 0; i < count; i++)
                    c.rma().putNbi(b, len * i, Memory.of(Mem.patterned(len, c.rank() * 1000 + i)), 0, len, right(c));
                c.rma().quiet();
                c.barrier();
                for (int i = 0; i < count; i++)
                    Mem.expectPattern(Mem.read(c, b, len * i, len), left(c) * 1000 + i, "non-blocking put #" + i);
                c.barrier();
            }
        });
    }

    /** Verifies §2.7: a non-blocking put's source may be reused after quiet / if it fails, look at quiet returning before putNbi sources were consumed. */
    @Verifies("2.7")
    @Test
    void optional_rma_put_nbi_source_reusable_after_quiet() {
        spmd(Capability.NONBLOCKING_RMA, pe -> {
            Communicator c = pe.comm();
            try (SymmetricBuffer b = c.heap().allocate(1 << 16)) {
                MemorySegment src = Mem.patterned(1 << 16, 600 + c.rank());
                c.rma().putNbi(b, 0, Memory.of(src), 0, 1 << 16, right(c));
                c.rma().quiet();
                src.fill((byte) 0);
                c.barrier();
                Mem.expectPattern(
                        Mem.read(c, b, 0, 1 << 16),
                        600 + left(c),
                        "target after the source was overwritten after quiet");
                c.barrier();
            }
        });
    }

    /** Verifies §2.7: non-blocking gets fill their destinations by quiet / if it fails, look at the tracking of outstanding getNbi. */
    @Verifies("2.7")
    @Test
    void optional_rma_get_nbi_quiet() {
        spmd(Capability.NONBLOCKING_RMA, pe -> {
            Communicator c = pe.comm();
            int count = 64;
            long len = 1024 + 5;
            try (SymmetricBuffer b = c.heap().allocate(len * count)) {
                for (int i = 0; i < count; i++) Mem.write(c, b, len * i, Mem.patterned(len, c.rank() * 1000 + i));
                c.barrier();
                MemorySegment dst = MemorySegment.ofArray(new byte[(int) (len * count)]);
                for (int i = 0; i < count; i++) c.rma().getNbi(Memory.of(dst), len * i, b, len * i, len, right(c));
                c.rma().quiet();
                for (int i = 0; i < count; i++)
                    Mem.expectPattern(dst.asSlice(len * i, len), right(c) * 1000 + i, "non-blocking get #" + i);
                c.barrier();
            }
        });
    }

    /**
     * Verifies §2.3 (quiet completes the put at the target, seen there by a local read) / if it fails, look at
     * quiet: it must wait until the data is in the target's memory, not only order it or hand it to a queue that
     * a later get, barrier or put-to-self drains. The target learns that quiet returned through the kit's side
     * channel, never through the backend.
     */
    @Verifies("2.3")
    @Test
    void required_rma_quiet_completes_puts_seen_by_target() {
        spmd(pe -> RemoteCompletion.quietSeenByTarget(pe, RemoteCompletion.Issuer.THIS_THREAD));
    }

    /**
     * Verifies §2.3 ("issued by this PE … from any thread") / if it fails, look at per-thread queues or
     * contexts: quiet must complete the puts of every thread of the PE, not only the calling thread's.
     */
    @Verifies("2.3")
    @Test
    void required_rma_quiet_completes_puts_of_other_threads() {
        spmd(pe -> RemoteCompletion.quietSeenByTarget(pe, RemoteCompletion.Issuer.OTHER_THREAD));
    }

    /** Verifies §2.5 for puts of another thread / if it fails, look at Communicator.barrier: it must complete every thread's RMA, not only the caller's. */
    @Verifies("2.5")
    @Test
    void required_rma_barrier_completes_puts_of_other_threads() {
        spmd(RemoteCompletion::barrierCompletesOtherThreadsPuts);
    }

    /** Verifies §2.3 ("complete at the target (to every PE)") / if it fails, look at quiet draining only some targets' queues or connections. */
    @Verifies("2.3")
    @Test
    void required_rma_quiet_completes_puts_to_every_pe() {
        spmd(RemoteCompletion::quietCompletesToEveryPe);
    }

    /** Verifies §2.5 (after a barrier every PE sees every put, by get too) / if it fails, look at a get served from a cache or an earlier transfer's bounce buffer. */
    @Verifies("2.5")
    @Test
    void required_rma_get_sees_updates_after_barrier() {
        spmd(pe -> AtomicsCompletion.readsSeeUpdates(pe, false));
    }
}
