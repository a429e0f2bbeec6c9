package dev.unicomm.conformance;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.Capability;
import dev.unicomm.api.Cmp;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.Memory;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.SymmetricBuffer;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Put-with-signal (SET, ADD, blocking and non-blocking) and signal wait-until with every comparison. */
public abstract class SignalSuite extends KitSuite {

    static int right(Communicator c) {
        return (c.rank() + 1) % c.size();
    }

    static int left(Communicator c) {
        return (c.rank() + c.size() - 1) % c.size();
    }

    /** Verifies §4.1: put-with-signal SET delivers the data, then the signal / if it fails, look at the order of data and signal writes. */
    @Verifies("4.1")
    @Test
    void optional_signal_put_signal_set() {
        spmd(Capability.SIGNALS, pe -> {
            Communicator c = pe.comm();
            try (SymmetricBuffer data = c.heap().allocate(4096);
                    SymmetricBuffer sig = c.heap().allocate(64)) {
                Mem.write(c, sig, 0, Mem.longs(0));
                c.barrier();
                for (int round = 1; round <= 10; round++) {
                    c.rma()
                            .putSignal(
                                    data,
                                    0,
                                    Memory.of(Mem.patterned(4096, round * 10 + c.rank())),
                                    0,
                                    4096,
                                    sig,
                                    0,
                                    round,
                                    SignalOp.SET,
                                    right(c));
                    long got = c.rma().signalWaitUntil(sig, 0, Cmp.EQ, round);
                    Mem.expectWord(round, got, "signal value returned by wait-until");
                    Mem.expectPattern(
                            Mem.read(c, data, 0, 4096),
                            round * 10 + left(c),
                            "round " + round + " data after its signal");
                    c.barrier(); // the next round overwrites the data
                }
            }
        });
    }

    /** Verifies §4.3: put-with-signal ADD from every PE adds up / if it fails, look at atomicity of signal ADD. */
    @Verifies("4.3")
    @Test
    void optional_signal_put_signal_add() {
        spmd(Capability.SIGNALS, pe -> {
            Communicator c = pe.comm();
            int n = c.size();
            try (SymmetricBuffer data = c.heap().allocate(64L * n);
                    SymmetricBuffer sig = c.heap().allocate(64)) {
                Mem.write(c, sig, 0, Mem.longs(0));
                c.barrier();
                for (int p = 0; p < n; p++)
                    c.rma()
                            .putSignal(
                                    data,
                                    64L * c.rank(),
                                    Memory.of(Mem.patterned(64, c.rank())),
                                    0,
                                    64,
                                    sig,
                                    0,
                                    c.rank() + 1,
                                    SignalOp.ADD,
                                    p);
                long total = (long) n * (n + 1) / 2;
                long got = c.rma().signalWaitUntil(sig, 0, Cmp.GE, total);
                Mem.expectWord(total, got, "sum of the ADD signals of all ranks");
                for (int r = 0; r < n; r++) Mem.expectPattern(Mem.read(c, data, 64L * r, 64), r, "data from rank " + r);
                c.barrier();
                Mem.expectWord(total, c.rma().signalFetch(sig, 0), "signal after every rank finished");
            }
        });
    }

    /** Verifies §4.1: non-blocking put-with-signal delivers data and signal by quiet / if it fails, look at putSignalNbi's completion tracking. */
    @Verifies("4.1")
    @Test
    void optional_signal_put_signal_nbi() {
        spmd(Capability.SIGNALS, pe -> {
            Capabilities.require(pe.comm(), Capability.NONBLOCKING_RMA);
            Communicator c = pe.comm();
            try (SymmetricBuffer data = c.heap().allocate(1 << 16);
                    SymmetricBuffer sig = c.heap().allocate(64)) {
                Mem.write(c, sig, 0, Mem.longs(0));
                c.barrier();
                c.rma()
                        .putSignalNbi(
                                data,
                                0,
                                Memory.of(Mem.patterned(1 << 16, 77 + c.rank())),
                                0,
                                1 << 16,
                                sig,
                                0,
                                5,
                                SignalOp.SET,
                                right(c));
                c.rma().quiet();
                Mem.expectWord(5, c.rma().signalWaitUntil(sig, 0, Cmp.EQ, 5), "non-blocking put-with-signal value");
                Mem.expectPattern(
                        Mem.read(c, data, 0, 1 << 16), 77 + left(c), "data of a non-blocking put-with-signal");
                c.barrier();
            }
        });
    }

    /** Verifies §4.1: a PE that sees the signal sees all the data / if it fails, look at signal written before the data has landed. */
    @Verifies("4.1")
    @Test
    void optional_signal_data_visible_before_signal() {
        spmd(Capability.SIGNALS, pe -> {
            Communicator c = pe.comm();
            long n = 4L << 20;
            try (SymmetricBuffer data = c.heap().allocate(n);
                    SymmetricBuffer sig = c.heap().allocate(64)) {
                Mem.write(c, sig, 0, Mem.longs(0));
                c.barrier();
                SideChannel side = pe.sideChannel();
                InStep step = new InStep();
                c.rma()
                        .putSignal(
                                data,
                                0,
                                Memory.of(Mem.patterned(n, 33 + c.rank())),
                                0,
                                n,
                                sig,
                                0,
                                1,
                                SignalOp.ADD,
                                right(c));
                // no barrier or quiet: the signal alone promises the 4 MiB are there; the writer reaches no
                // completion point (which could deliver data queued after the signal) until its target has looked
                step.check(() -> side.checkThenTell("checked/" + c.rank(), () -> {
                    c.rma().signalWaitUntil(sig, 0, Cmp.NE, 0);
                    Mem.expectPattern(Mem.read(c, data, 0, n), 33 + left(c), "4 MiB seen right after its signal");
                }));
                side.await("checked/" + right(c));
                c.barrier();
                step.rethrow();
            }
        });
    }

    /** Verifies §4.3: concurrent signal ADDs are neither lost nor doubled / if it fails, look at atomicity of signal ADD under contention. */
    @Verifies("4.3")
    @Test
    void optional_signal_add_contention() {
        spmd(Capability.SIGNALS, pe -> {
            Communicator c = pe.comm();
            int per = 200;
            try (SymmetricBuffer data = c.heap().allocate(64);
                    SymmetricBuffer sig = c.heap().allocate(64)) {
                Mem.write(c, sig, 0, Mem.longs(0));
                c.barrier();
                Memory src = Memory.of(Mem.patterned(8, c.rank()));
                for (int i = 0; i < per; i++) c.rma().putSignal(data, 0, src, 0, 8, sig, 0, 1, SignalOp.ADD, 0);
                c.rma().quiet();
                if (c.rank() == 0) {
                    long want = (long) per * c.size();
                    Mem.expectWord(
                            want,
                            c.rma().signalWaitUntil(sig, 0, Cmp.GE, want),
                            "signal after " + want + " concurrent ADDs");
                }
                c.barrier();
                if (c.rank() == 0)
                    Mem.expectWord((long) per * c.size(), c.rma().signalFetch(sig, 0), "no ADD lost or doubled");
            }
        });
    }

    /** Verifies §4.2: wait-until returns the first value satisfying the comparison, not a decoy / if it fails, look at the comparison operator's implementation. */
    @Verifies("4.2")
    @Test
    void optional_signal_wait_until_eq() {
        spmd(Capability.SIGNALS, pe -> waitUntil(pe, Cmp.EQ, 0, 4, 5, 5));
    }

    /** Verifies §4.2: wait-until returns the first value satisfying the comparison, not a decoy / if it fails, look at the comparison operator's implementation. */
    @Verifies("4.2")
    @Test
    void optional_signal_wait_until_ne() {
        spmd(Capability.SIGNALS, pe -> waitUntil(pe, Cmp.NE, 9, 9, 9, 10));
    }

    /** Verifies §4.2: wait-until returns the first value satisfying the comparison, not a decoy / if it fails, look at the comparison operator's implementation. */
    @Verifies("4.2")
    @Test
    void optional_signal_wait_until_gt() {
        spmd(Capability.SIGNALS, pe -> waitUntil(pe, Cmp.GT, 0, 10, 10, 11));
    }

    /** Verifies §4.2: wait-until returns the first value satisfying the comparison, not a decoy / if it fails, look at the comparison operator's implementation. */
    @Verifies("4.2")
    @Test
    void optional_signal_wait_until_ge() {
        spmd(Capability.SIGNALS, pe -> waitUntil(pe, Cmp.GE, 0, 9, 10, 10));
    }

    /** Verifies §4.2: wait-until returns the first value satisfying the comparison, not a decoy / if it fails, look at the comparison operator's implementation. */
    @Verifies("4.2")
    @Test
    void optional_signal_wait_until_lt() {
        spmd(Capability.SIGNALS, pe -> waitUntil(pe, Cmp.LT, 100, 50, 50, 49));
    }

    /** Verifies §4.2: wait-until returns the first value satisfying the comparison, not a decoy / if it fails, look at the comparison operator's implementation. */
    @Verifies("4.2")
    @Test
    void optional_signal_wait_until_le() {
        spmd(Capability.SIGNALS, pe -> waitUntil(pe, Cmp.LE, 100, 51, 50, 50));
    }

    /**
     * The word starts at {@code initial}; a sender first SETs {@code decoy} (which does not satisfy
     * {@code cmp value}), waits, then SETs {@code last} (which does). The wait must return {@code last},
     * not the decoy. Phase 0: rank 0 sends to every other rank; phase 1: rank 1 sends to rank 0.
     */
    static void waitUntil(Pe pe, Cmp cmp, long initial, long decoy, long value, long last) throws InterruptedException {
        Communicator c = pe.comm();
        NotApplicable.unlessRanks(c.size(), 2, "wait-until rules need a second rank to send the signal");
        assertTrue(!cmp.test(initial, value) && !cmp.test(decoy, value) && cmp.test(last, value), "rule set-up");
        try (SymmetricBuffer data = c.heap().allocate(64);
                SymmetricBuffer sig = c.heap().allocate(64)) {
            for (int phase = 0; phase < 2; phase++) {
                int sender = phase;
                Mem.write(c, sig, 0, Mem.longs(initial));
                c.barrier();
                if (c.rank() == sender) {
                    for (long v : new long[] {decoy, last}) {
                        for (int p = 0; p < c.size(); p++) {
                            if (p != sender && (phase == 0 || p == 0))
                                c.rma().putSignal(data, 0, Memory.of(Mem.longs(v)), 0, 8, sig, 0, v, SignalOp.SET, p);
                        }
                        c.rma().quiet();
                        if (v == decoy) Thread.sleep(100);
                    }
                } else if (phase == 0 || c.rank() == 0) {
                    long got = c.rma().signalWaitUntil(sig, 0, cmp, value);
                    Mem.expectWord(
                            last,
                            got,
                            "wait-until " + cmp + " " + value + " (signal went " + initial + " -> " + decoy + " -> "
                                    + last + ") returned");
                }
                c.barrier();
            }
        }
    }

    /** Verifies §4.2: wait-until compares as signed 64-bit / if it fails, look at unsigned comparisons in wait-until. */
    @Verifies("4.2")
    @Test
    void optional_signal_wait_until_signed() {
        spmd(Capability.SIGNALS, pe -> waitUntil(pe, Cmp.LT, 0, 5, 0, -3));
    }

    /** Verifies §4.2: wait-until returns at once when already satisfied / if it fails, look at wait-until blocking before its first check. */
    @Verifies("4.2")
    @Test
    void optional_signal_wait_until_already_satisfied() {
        spmd(Capability.SIGNALS, pe -> {
            Communicator c = pe.comm();
            try (SymmetricBuffer sig = c.heap().allocate(64)) {
                Mem.write(c, sig, 0, Mem.longs(42));
                for (Cmp cmp : Cmp.values()) {
                    long value =
                            switch (cmp) {
                                case EQ, GE, LE -> 42;
                                case NE, LT -> 43;
                                case GT -> 41;
                            };
                    Mem.expectWord(
                            42,
                            c.rma().signalWaitUntil(sig, 0, cmp, value),
                            "wait-until " + cmp + " " + value + " on 42");
                }
                Mem.expectWord(42, c.rma().signalFetch(sig, 0), "signalFetch");
                c.barrier();
            }
        });
    }

    /** Verifies §4.2: wait-until times out with CommTimeoutException and leaves the communicator usable / if it fails, look at the wait's deadline and clean-up after a timeout. */
    @Verifies("4.2")
    @Test
    void optional_signal_wait_until_times_out() {
        spmd(Capability.SIGNALS, pe -> {
            Duration limit = Duration.ofMillis(400);
            try (Communicator one = pe.connectSingle(limit);
                    SymmetricBuffer sig = one.heap().allocate(64)) {
                Mem.write(one, sig, 0, Mem.longs(0));
                long t0 = System.nanoTime();
                assertThrows(
                        CommTimeoutException.class,
                        () -> one.rma().signalWaitUntil(sig, 0, Cmp.EQ, 1),
                        "wait-until nobody satisfies must time out");
                long ms = (System.nanoTime() - t0) / 1_000_000;
                assertTrue(
                        ms >= limit.toMillis() - 50 && ms < limit.toMillis() + 5_000,
                        "a " + limit.toMillis() + " ms wait-until gave up after " + ms + " ms");
                Mem.expectWord(0, one.rma().signalFetch(sig, 0), "the communicator still works after a timeout");
            }
        });
    }
}
