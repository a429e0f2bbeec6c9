package dev.unicomm.conformance;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.Capability;
import dev.unicomm.api.Cmp;
import dev.unicomm.api.CommConfig;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.Memory;
import dev.unicomm.api.OutOfSymmetricMemoryException;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Team;
import dev.unicomm.api.Unicomm;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Invalid calls: each gets its exception with a message saying what was wrong, the process
 * survives, and the communicator goes on working (each rule ends with a checked exchange).
 */
public abstract class BadInputSuite extends KitSuite {

    /** Asserts {@code call} throws {@code type} with a message that names {@code mentions}. */
    static <T extends Throwable> void rejects(Class<T> type, String mentions, String what, Executable call) {
        T e = assertThrows(type, call, what + " must throw " + type.getSimpleName());
        String m = e.getMessage();
        assertTrue(m != null && !m.isBlank(), what + ": the exception has no message");
        assertTrue(m.contains(mentions), what + ": the message should mention '" + mentions + "': " + m);
    }

    /** The communicator still works: a put to the right neighbour, a barrier, a check. */
    static void stillUsable(Communicator c, int seed) {
        try (SymmetricBuffer b = c.heap().allocate(256)) {
            c.rma().put(b, 0, Mem.patterned(256, seed + c.rank()), (c.rank() + 1) % c.size());
            c.rma().quiet();
            c.barrier();
            Mem.expectPattern(
                    Mem.read(c, b, 0, 256),
                    seed + (c.rank() + c.size() - 1) % c.size(),
                    "exchange after the rejected calls");
            c.barrier();
        }
    }

    /** Verifies §10.1: bad RMA arguments throw a clear exception before any native call / if it fails, look at the argument checks in front of the data path. */
    @Verifies("10.1")
    @Test
    void required_badinput_pe_out_of_range() {
        spmd(pe -> {
            Communicator c = pe.comm();
            int n = c.size();
            try (SymmetricBuffer b = c.heap().allocate(64)) {
                MemorySegment src = MemorySegment.ofArray(new byte[8]);
                rejects(IndexOutOfBoundsException.class, Integer.toString(n), "put to PE " + n, () -> c.rma()
                        .put(b, 0, src, n));
                rejects(IndexOutOfBoundsException.class, "-1", "put to PE -1", () -> c.rma()
                        .put(b, 0, src, -1));
                rejects(IndexOutOfBoundsException.class, Integer.toString(n), "get from PE " + n, () -> c.rma()
                        .get(src, b, 0, n));
                rejects(IndexOutOfBoundsException.class, "-7", "get from PE -7", () -> c.rma()
                        .get(src, b, 0, -7));
                rejects(
                        IndexOutOfBoundsException.class,
                        Integer.toString(n + 100),
                        "peer(" + (n + 100) + ")",
                        () -> b.peer(n + 100));
            }
            stillUsable(c, 1);
        });
    }

    /** Verifies §10.1: bad RMA arguments throw a clear exception before any native call / if it fails, look at the argument checks in front of the data path. */
    @Verifies("10.1")
    @Test
    void required_badinput_remote_range_outside_buffer() {
        spmd(pe -> {
            Communicator c = pe.comm();
            int right = (c.rank() + 1) % c.size();
            try (SymmetricBuffer b = c.heap().allocate(100)) {
                Memory src = Memory.of(MemorySegment.ofArray(new byte[200]));
                rejects(IndexOutOfBoundsException.class, "100", "put past the end", () -> c.rma()
                        .put(b, 97, src, 0, 4, right));
                rejects(IndexOutOfBoundsException.class, "100", "put larger than the buffer", () -> c.rma()
                        .put(b, 0, src, 0, 101, right));
                rejects(IndexOutOfBoundsException.class, "-1", "put at a negative offset", () -> c.rma()
                        .put(b, -1, src, 0, 4, right));
                rejects(IndexOutOfBoundsException.class, "100", "get past the end", () -> c.rma()
                        .get(src, 0, b, 99, 2, right));
                rejects(IndexOutOfBoundsException.class, "100", "put with offset overflow", () -> c.rma()
                        .put(b, Long.MAX_VALUE, src, 0, 2, right));
            }
            stillUsable(c, 2);
        });
    }

    /** Verifies §10.1: bad RMA arguments throw a clear exception before any native call / if it fails, look at the argument checks in front of the data path. */
    @Verifies("10.1")
    @Test
    void required_badinput_local_range_outside_memory() {
        spmd(pe -> {
            Communicator c = pe.comm();
            int right = (c.rank() + 1) % c.size();
            try (SymmetricBuffer b = c.heap().allocate(100)) {
                Memory small = Memory.of(MemorySegment.ofArray(new byte[10]));
                rejects(IndexOutOfBoundsException.class, "10", "put from past the source's end", () -> c.rma()
                        .put(b, 0, small, 0, 11, right));
                rejects(IndexOutOfBoundsException.class, "10", "put from a source offset past its end", () -> c.rma()
                        .put(b, 0, small, 8, 4, right));
                rejects(IndexOutOfBoundsException.class, "10", "get into past the destination's end", () -> c.rma()
                        .get(small, 5, b, 0, 6, right));
            }
            stillUsable(c, 3);
        });
    }

    /** Verifies §10.1: bad RMA arguments throw a clear exception before any native call / if it fails, look at the argument checks in front of the data path. */
    @Verifies("10.1")
    @Test
    void required_badinput_negative_length() {
        spmd(pe -> {
            Communicator c = pe.comm();
            int right = (c.rank() + 1) % c.size();
            try (SymmetricBuffer b = c.heap().allocate(100)) {
                Memory src = Memory.of(MemorySegment.ofArray(new byte[10]));
                rejects(IndexOutOfBoundsException.class, "-5", "put of -5 bytes", () -> c.rma()
                        .put(b, 0, src, 0, -5, right));
                rejects(IndexOutOfBoundsException.class, "-5", "get of -5 bytes", () -> c.rma()
                        .get(src, 0, b, 0, -5, right));
            }
            stillUsable(c, 4);
        });
    }

    /** Verifies §10.1: bad RMA arguments throw a clear exception before any native call / if it fails, look at the argument checks in front of the data path. */
    @Verifies("10.1")
    @Test
    void optional_badinput_misaligned_atomic() {
        spmd(Capability.ATOMICS, pe -> {
            Communicator c = pe.comm();
            int right = (c.rank() + 1) % c.size();
            try (SymmetricBuffer b = c.heap().allocate(64)) {
                rejects(IllegalArgumentException.class, "aligned", "fetch-add at offset 4", () -> c.rma()
                        .atomicFetchAdd(b, 4, 1, right));
                rejects(IllegalArgumentException.class, "aligned", "CAS at offset 1", () -> c.rma()
                        .atomicCompareSwap(b, 1, 0, 1, right));
                rejects(IllegalArgumentException.class, "aligned", "swap at offset 12", () -> c.rma()
                        .atomicSwap(b, 12, 0, right));
                rejects(IndexOutOfBoundsException.class, "64", "atomic on the last 4 bytes and beyond", () -> c.rma()
                        .atomicFetch(b, 64, right));
            }
            stillUsable(c, 5);
        });
    }

    /** Verifies §10.1: bad RMA arguments throw a clear exception before any native call / if it fails, look at the argument checks in front of the data path. */
    @Verifies("10.1")
    @Test
    void optional_badinput_misaligned_signal() {
        spmd(Capability.SIGNALS, pe -> {
            Communicator c = pe.comm();
            int right = (c.rank() + 1) % c.size();
            try (SymmetricBuffer data = c.heap().allocate(64);
                    SymmetricBuffer sig = c.heap().allocate(64)) {
                Memory src = Memory.of(MemorySegment.ofArray(new byte[8]));
                rejects(
                        IllegalArgumentException.class,
                        "aligned",
                        "put-with-signal on a word at offset 3",
                        () -> c.rma().putSignal(data, 0, src, 0, 8, sig, 3, 1, SignalOp.SET, right));
                rejects(IllegalArgumentException.class, "aligned", "wait-until on a word at offset 6", () -> c.rma()
                        .signalWaitUntil(sig, 6, Cmp.EQ, 0));
                rejects(IllegalArgumentException.class, "signal op", "put-with-signal without an op", () -> c.rma()
                        .putSignal(data, 0, src, 0, 8, sig, 0, 1, null, right));
                rejects(IllegalArgumentException.class, "comparison", "wait-until without a comparison", () -> c.rma()
                        .signalWaitUntil(sig, 0, null, 0));
            }
            stillUsable(c, 6);
        });
    }

    /** Verifies §10.2: misuse of closed or foreign objects throws and leaves the communicator usable / if it fails, look at the closed/owner checks before native calls. */
    @Verifies("10.2")
    @Test
    void required_badinput_use_after_free() {
        spmd(pe -> {
            Communicator c = pe.comm();
            SymmetricBuffer b = c.heap().allocate(64);
            b.close();
            assertFalse(b.isOpen(), "a freed buffer reports closed");
            int right = (c.rank() + 1) % c.size();
            rejects(IllegalStateException.class, "freed", "put into a freed buffer", () -> c.rma()
                    .put(b, 0, MemorySegment.ofArray(new byte[8]), right));
            rejects(IllegalStateException.class, "freed", "get from a freed buffer", () -> c.rma()
                    .get(MemorySegment.ofArray(new byte[8]), b, 0, right));
            rejects(IllegalStateException.class, "freed", "segment() of a freed buffer", b::segment);
            stillUsable(c, 7);
        });
    }

    /** Verifies §10.2: misuse of closed or foreign objects throws and leaves the communicator usable / if it fails, look at the closed/owner checks before native calls. */
    @Verifies("10.2")
    @Test
    void required_badinput_double_free() {
        spmd(pe -> {
            Communicator c = pe.comm();
            SymmetricBuffer b = c.heap().allocate(64);
            b.close();
            rejects(IllegalStateException.class, "freed", "freeing a buffer twice", b::close);
            stillUsable(c, 8);
        });
    }

    /** Verifies §10.2: misuse of closed or foreign objects throws and leaves the communicator usable / if it fails, look at the closed/owner checks before native calls. */
    @Verifies("10.2")
    @Test
    void required_badinput_use_after_close() {
        spmd(pe -> {
            Communicator one = pe.connectSingle(Duration.ofSeconds(10));
            SymmetricBuffer b = one.heap().allocate(64);
            one.close();
            rejects(IllegalStateException.class, "closed", "heap() of a closed communicator", one::heap);
            rejects(IllegalStateException.class, "closed", "rma() of a closed communicator", one::rma);
            rejects(IllegalStateException.class, "closed", "barrier() of a closed communicator", one::barrier);
            rejects(IllegalStateException.class, "closed", "freeing a buffer of a closed communicator", b::close);
            stillUsable(pe.comm(), 9);
        });
    }

    /** Verifies §10.3: bad allocation arguments throw before allocating / if it fails, look at the allocation argument checks. */
    @Verifies("10.3")
    @Test
    void required_badinput_negative_allocation() {
        spmd(pe -> {
            Communicator c = pe.comm();
            rejects(IllegalArgumentException.class, "-1", "allocate(-1)", () -> c.heap()
                    .allocate(-1));
            stillUsable(c, 10);
        });
    }

    /** Verifies §10.3: bad allocation arguments throw before allocating / if it fails, look at the allocation argument checks. */
    @Verifies("10.3")
    @Test
    void required_badinput_alignment_not_power_of_two() {
        spmd(pe -> {
            Communicator c = pe.comm();
            for (long a : new long[] {0, 3, 24, -8}) {
                rejects(IllegalArgumentException.class, "power of two", "alignment " + a, () -> c.heap()
                        .allocate(64, a));
            }
            stillUsable(c, 11);
        });
    }

    /** Verifies §10.3: bad allocation arguments throw before allocating / if it fails, look at the allocation argument checks. */
    @Verifies("10.3")
    @Test
    void required_badinput_oversized_allocation() {
        spmd(pe -> {
            Communicator c = pe.comm();
            long used = c.heap().used();
            rejects(
                    OutOfSymmetricMemoryException.class,
                    Long.toString(Long.MAX_VALUE),
                    "allocate(Long.MAX_VALUE)",
                    () -> c.heap().allocate(Long.MAX_VALUE));
            assertTrue(c.heap().used() == used, "a failed allocation must not change used()");
            stillUsable(c, 12);
        });
    }

    /** Verifies §10.1: bad RMA arguments throw a clear exception before any native call / if it fails, look at the argument checks in front of the data path. */
    @Verifies("10.1")
    @Test
    void required_badinput_null_arguments() {
        spmd(pe -> {
            Communicator c = pe.comm();
            try (SymmetricBuffer b = c.heap().allocate(64)) {
                rejects(IllegalArgumentException.class, "null", "put into null", () -> c.rma()
                        .put(null, 0, Memory.of(MemorySegment.ofArray(new byte[8])), 0, 8, 0));
                rejects(IllegalArgumentException.class, "null", "put from null", () -> c.rma()
                        .put(b, 0, (Memory) null, 0, 8, 0));
                rejects(IllegalArgumentException.class, "null", "get from null", () -> c.rma()
                        .get(Memory.of(MemorySegment.ofArray(new byte[8])), 0, null, 0, 8, 0));
            }
            stillUsable(c, 13);
        });
    }

    /** Verifies §10.2: misuse of closed or foreign objects throws and leaves the communicator usable / if it fails, look at the closed/owner checks before native calls. */
    @Verifies("10.2")
    @Test
    void required_badinput_foreign_buffer() {
        spmd(pe -> {
            Communicator c = pe.comm();
            try (Communicator other = pe.connectSingle(Duration.ofSeconds(10));
                    SymmetricBuffer foreign = other.heap().allocate(64)) {
                rejects(
                        IllegalArgumentException.class,
                        "not allocated from this communicator",
                        "put into another communicator's buffer",
                        () -> c.rma().put(foreign, 0, MemorySegment.ofArray(new byte[8]), 0));
            }
            stillUsable(c, 14);
        });
    }

    /** Verifies §10.3: bad allocation arguments throw before allocating / if it fails, look at the allocation argument checks. */
    @Verifies("10.3")
    @Test
    void required_badinput_mismatched_allocation_sizes() {
        assumeRanks(2);
        spmd(pe -> {
            Communicator c = pe.comm();
            rejects(
                    IllegalArgumentException.class,
                    "size",
                    "allocate with a different size on every rank",
                    () -> c.heap().allocate(1024 + 64L * c.rank()));
            stillUsable(c, 15);
        });
    }

    /** Verifies §10.2: misuse of closed or foreign objects throws and leaves the communicator usable / if it fails, look at the closed/owner checks before native calls. */
    @Verifies("10.2")
    @Test
    void required_badinput_world_team_close() {
        spmd(pe -> {
            Communicator c = pe.comm();
            rejects(IllegalStateException.class, "world", "closing the world team", () -> c.world()
                    .close());
            stillUsable(c, 16);
        });
    }

    /** Verifies §10.1: bad RMA arguments throw a clear exception before any native call / if it fails, look at the argument checks in front of the data path. */
    @Verifies("10.1")
    @Test
    void optional_badinput_team_split_arguments() {
        spmd(Capability.TEAMS, pe -> {
            Communicator c = pe.comm();
            Team w = c.world();
            int n = c.size();
            rejects(
                    IndexOutOfBoundsException.class,
                    Integer.toString(n),
                    "split starting at " + n,
                    () -> w.split(n, 1, 1));
            rejects(IllegalArgumentException.class, "stride", "split with stride 0", () -> w.split(0, 0, 1));
            rejects(
                    IndexOutOfBoundsException.class,
                    Integer.toString(n),
                    "split reaching past the team",
                    () -> w.split(0, 1, n + 1));
            rejects(IllegalArgumentException.class, "xRange", "split2d(0)", () -> w.split2d(0));
            rejects(IndexOutOfBoundsException.class, Integer.toString(n), "worldRank(" + n + ")", () -> w.worldRank(n));
            stillUsable(c, 17);
        });
    }

    /** Verifies §10.2: misuse of closed or foreign objects throws and leaves the communicator usable / if it fails, look at the closed/owner checks before native calls. */
    @Verifies("10.2")
    @Test
    void optional_badinput_closed_team() {
        spmd(Capability.TEAMS, pe -> {
            Communicator c = pe.comm();
            Team t = c.world().split(0, 1, c.size());
            t.close();
            rejects(IllegalStateException.class, "closed", "barrier on a closed team", t::barrier);
            rejects(IllegalStateException.class, "closed", "splitting a closed team", () -> t.split(0, 1, 1));
            stillUsable(c, 18);
        });
    }

    /** Verifies §10.4: an unknown backend name fails listing the known ones / if it fails, look at BackendRegistry.select. */
    @Verifies("10.4")
    @Test
    void required_badinput_unknown_backend() {
        spmd(pe -> {
            rejects(
                    IllegalArgumentException.class,
                    pe.backend(),
                    "connecting to an unknown backend (message lists the known ones)",
                    () -> Unicomm.connect(CommConfig.single("no-such-backend")));
            stillUsable(pe.comm(), 19);
        });
    }
}
