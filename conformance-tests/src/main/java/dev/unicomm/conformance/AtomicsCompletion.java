package dev.unicomm.conformance;

import dev.unicomm.api.Capability;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.Memory;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.SymmetricBuffer;
import java.lang.foreign.MemorySegment;

/**
 * Bodies of the §2/§5 rules that an emulating engine gets wrong when its atomics take another path than
 * its puts (puts queued, atomics immediate), defers non-fetching atomics, serves reads from a cache, or
 * keeps signal words apart from atomic words. Checks are local loads; the writer learns through the
 * {@link SideChannel} that its target has looked before it reaches another completion point.
 */
final class AtomicsCompletion {
    private AtomicsCompletion() {}

    static final long DATA = 256 << 10;
    static final int ROUNDS = 3;

    static int right(Communicator c) {
        return (c.rank() + 1) % c.size();
    }

    static int left(Communicator c) {
        return (c.rank() + c.size() - 1) % c.size();
    }

    /** §2.4: data put, fence, then an atomic set of a flag to the same PE: a PE that sees the flag sees the data. */
    static void fenceOrdersPutBeforeAtomic(Pe pe) {
        Communicator c = pe.comm();
        InStep step = new InStep();
        SideChannel side = pe.sideChannel();
        try (SymmetricBuffer b = c.heap().allocate(DATA + 64)) {
            long flagAt = DATA;
            Mem.write(c, b, flagAt, Mem.longs(-1));
            c.barrier();
            for (int round = 0; round < ROUNDS; round++) {
                c.rma().put(b, 0, Memory.of(Mem.patterned(DATA, round * 10 + c.rank())), 0, DATA, right(c));
                c.rma().fence();
                c.rma().atomicSet(b, flagAt, round, right(c));
                long r = round;
                step.check(() -> side.checkThenTell("checked/" + r + "/" + c.rank(), () -> {
                    Mem.awaitLong(
                            c,
                            b,
                            flagAt,
                            v -> v == r,
                            v -> v == r - 1 || v == -1,
                            pe.timeout(),
                            "round " + r + " flag from rank " + left(c));
                    Mem.expectPattern(
                            Mem.read(c, b, 0, DATA),
                            (int) r * 10 + left(c),
                            "round " + r + ": data put before a fence,"
                                    + " read locally once the atomic set issued after the fence was seen (fence orders puts before atomics to one PE)");
                }));
                side.await("checked/" + round + "/" + right(c)); // no completion point before the target looked
            }
            c.barrier();
        }
        step.rethrow();
    }

    /** §2.3: atomicAdd and atomicSet (no result to wait for), then quiet; the target reads its words locally. */
    static void quietCompletesAtomicUpdates(Pe pe) {
        Communicator c = pe.comm();
        InStep step = new InStep();
        SideChannel side = pe.sideChannel();
        try (SymmetricBuffer w = c.heap().allocate(64)) {
            Mem.write(c, w, 0, Mem.longs(0, 0));
            c.barrier();
            for (int round = 1; round <= ROUNDS; round++) {
                c.rma().atomicAdd(w, 0, c.rank() + 1, right(c));
                c.rma().atomicSet(w, 8, round * 100L + c.rank(), right(c));
                c.rma().quiet();
                side.tell("quiet-returned/" + round + "/" + c.rank());
                side.await("quiet-returned/" + round + "/" + left(c));
                long r = round;
                step.check(() -> side.checkThenTell("checked/" + r + "/" + c.rank(), () -> {
                    Mem.expectWord(
                            r * (left(c) + 1),
                            Mem.readLong(c, w, 0),
                            "round " + r + ": word after rank " + left(c)
                                    + "'s atomicAdds and its quiet, read locally (quiet completes atomics too)");
                    Mem.expectWord(
                            r * 100 + left(c),
                            Mem.readLong(c, w, 8),
                            "round " + r + ": word after rank " + left(c) + "'s atomicSet and its quiet, read locally");
                }));
                side.await("checked/" + round + "/" + right(c));
            }
            c.barrier();
        }
        step.rethrow();
    }

    /**
     * §5.3 and §2.5: each PE changes its own words (put to itself, quiet), then a barrier; the left
     * neighbour, which read those words before, must read the new values (by get, or by atomic fetch):
     * nothing may serve a remote read from a copy of an earlier one.
     */
    static void readsSeeUpdates(Pe pe, boolean atomicFetch) {
        Communicator c = pe.comm();
        InStep step = new InStep();
        try (SymmetricBuffer b = c.heap().allocate(4096)) {
            for (int round = 0; round < 4; round++) {
                long v = round * 1000L + c.rank();
                c.rma().put(b, 0, Memory.of(Mem.longs(v)), 0, 8, c.rank());
                c.rma().put(b, 8, Memory.of(Mem.patterned(4088, (int) v)), 0, 4088, c.rank());
                c.rma().quiet();
                c.barrier();
                long want = round * 1000L + right(c);
                int r = round;
                if (atomicFetch) {
                    long got = c.rma().atomicFetch(b, 0, right(c));
                    step.check(
                            () -> Mem.expectWord(
                                    want,
                                    got,
                                    "round " + r + ": atomic fetch of rank " + right(c)
                                            + "'s word after it changed it and a barrier (an atomic fetch must read the target, not a cached value)"));
                } else {
                    MemorySegment got = MemorySegment.ofArray(new byte[4088]);
                    c.rma().get(Memory.of(got), 0, b, 8, 4088, right(c));
                    step.check(
                            () -> Mem.expectPattern(
                                    got,
                                    (int) want,
                                    "round " + r + ": get from rank " + right(c)
                                            + " after it changed its bytes and a barrier (a get must read the target, not a copy of an earlier get)"));
                }
                c.barrier();
            }
        }
        step.rethrow();
    }

    /**
     * §5.1: atomics are atomic with respect to signal updates on the same word. Rank by rank (quiet and barrier
     * between turns), each adds 1 with atomicAdd and 1 with a put-with-signal ADD to one word on rank 0: the
     * word must count every add, and a signal fetch and an atomic fetch of it must agree.
     */
    static void atomicsAndSignalAddsShareAWord(Pe pe) {
        Capabilities.require(pe.comm(), Capability.SIGNALS);
        Communicator c = pe.comm();
        InStep step = new InStep();
        try (SymmetricBuffer w = c.heap().allocate(64);
                SymmetricBuffer data = c.heap().allocate(64L * c.size())) {
            for (int round = 0; round < ROUNDS; round++) {
                // a new, large start value each round: a total kept anywhere but in the word cannot match it
                long start = 1_000_003L * (round + 1) + 77;
                if (c.rank() == 0) Mem.write(c, w, 0, Mem.longs(start));
                c.barrier();
                for (int turn = 0; turn < c.size(); turn++) {
                    if (turn == c.rank()) {
                        c.rma().atomicAdd(w, 0, 1, 0);
                        c.rma().quiet();
                        c.rma()
                                .putSignal(
                                        data,
                                        64L * c.rank(),
                                        Memory.of(Mem.patterned(64, c.rank())),
                                        0,
                                        64,
                                        w,
                                        0,
                                        1,
                                        SignalOp.ADD,
                                        0);
                        c.rma().quiet();
                    }
                    c.barrier();
                }
                long want = start + 2L * c.size(), got = c.rma().atomicFetch(w, 0, 0);
                int r = round;
                step.check(() -> Mem.expectWord(
                        want,
                        got,
                        "round " + r + ": word on rank 0 that started at " + start + ", after "
                                + c.size() + " atomicAdds and " + c.size()
                                + " signal ADDs of 1, one rank at a time (atomics and signal updates"
                                + " of one word must see each other)"));
                if (c.rank() == 0) {
                    long sig = c.rma().signalFetch(w, 0);
                    step.check(() -> Mem.expectWord(want, sig, "round " + r + ": signal fetch of the same word"));
                }
                c.barrier();
            }
        }
        step.rethrow();
    }
}
