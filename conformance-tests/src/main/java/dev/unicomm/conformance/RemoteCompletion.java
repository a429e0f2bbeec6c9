package dev.unicomm.conformance;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.Memory;
import dev.unicomm.api.SymmetricBuffer;
import java.time.Duration;
import org.opentest4j.AssertionFailedError;

/**
 * Bodies of the completion rules that a queueing engine can escape when the check itself goes through the
 * engine: the target learns that the writer's quiet (or barrier) returned through the {@link SideChannel},
 * reads its own memory with a local load ({@link Mem#read}), and the writer reaches no further completion
 * point until its target has looked. Puts come from the main thread or from a second thread of the PE
 * (§2.3: "issued by this PE … from any thread").
 */
final class RemoteCompletion {
    private RemoteCompletion() {}

    static final long BYTES = 512 << 10;
    static final int ROUNDS = 3;
    private static final byte GUARD = (byte) 0xEE;

    /** Who issues the put: the rule body's thread, or another thread of the same PE that ends before the completion call. */
    enum Issuer {
        THIS_THREAD,
        OTHER_THREAD
    }

    static int right(Communicator c) {
        return (c.rank() + 1) % c.size();
    }

    static int left(Communicator c) {
        return (c.rank() + c.size() - 1) % c.size();
    }

    /** Writer puts to its right neighbour, quiets, tells it; the target checks locally, then tells back. */
    static void quietSeenByTarget(Pe pe, Issuer issuer) {
        Communicator c = pe.comm();
        SideChannel side = pe.sideChannel();
        InStep step = new InStep();
        try (SymmetricBuffer b = c.heap().allocate(BYTES)) {
            Mem.clear(c, b, GUARD);
            c.barrier();
            for (int round = 0; round < ROUNDS; round++) {
                int seed = round * 10 + c.rank();
                issue(pe, issuer, () -> c.rma().put(b, 0, Memory.of(Mem.patterned(BYTES, seed)), 0, BYTES, right(c)));
                c.rma().quiet();
                side.tell("quiet-returned/" + round + "/" + c.rank());
                side.await("quiet-returned/" + round + "/" + left(c));
                int r = round;
                step.check(
                        () -> side.checkThenTell(
                                "checked/" + r + "/" + c.rank(),
                                () -> Mem.expectPattern(
                                        Mem.read(c, b, 0, BYTES),
                                        r * 10 + left(c),
                                        "round " + r + ": " + BYTES + " bytes put by rank " + left(c)
                                                + (issuer == Issuer.OTHER_THREAD ? " from a second thread" : "")
                                                + ", read locally once its quiet had returned (told through the kit's side"
                                                + " channel, not the backend): quiet must complete every put of the PE at the target")));
                side.await(
                        "checked/" + round + "/" + right(c)); // nothing may complete the put before its target looked
            }
            c.barrier();
        }
        step.rethrow();
    }

    /** A second thread of the PE puts; the body's thread then calls the world barrier, after which the target reads locally. */
    static void barrierCompletesOtherThreadsPuts(Pe pe) {
        Communicator c = pe.comm();
        InStep step = new InStep();
        try (SymmetricBuffer b = c.heap().allocate(BYTES)) {
            Mem.clear(c, b, GUARD);
            c.barrier();
            for (int round = 0; round < ROUNDS; round++) {
                int seed = round * 10 + c.rank();
                issue(pe, Issuer.OTHER_THREAD, () -> c.rma()
                        .put(b, 0, Memory.of(Mem.patterned(BYTES, seed)), 0, BYTES, right(c)));
                c.barrier();
                int r = round;
                step.check(() -> Mem.expectPattern(
                        Mem.read(c, b, 0, BYTES),
                        r * 10 + left(c),
                        "round " + r + ": " + BYTES
                                + " bytes put by a second thread of rank " + left(c)
                                + ", read locally after the world barrier (the barrier"
                                + " must complete every put of the PE, from any thread)"));
                c.barrier();
            }
        }
        step.rethrow();
    }

    /** Every rank puts a slot to every PE (itself included), quiets once, tells them all; each checks every slot locally. */
    static void quietCompletesToEveryPe(Pe pe) {
        Communicator c = pe.comm();
        SideChannel side = pe.sideChannel();
        int n = c.size();
        long slot = 64 << 10;
        InStep step = new InStep();
        try (SymmetricBuffer b = c.heap().allocate(slot * n)) {
            Mem.clear(c, b, GUARD);
            c.barrier();
            for (int p = 0; p < n; p++)
                c.rma().put(b, slot * c.rank(), Memory.of(Mem.patterned(slot, c.rank() * 31 + p)), 0, slot, p);
            c.rma().quiet();
            side.tell("quiet-returned/" + c.rank());
            for (int r = 0; r < n; r++) side.await("quiet-returned/" + r);
            step.check(() -> side.checkThenTell("checked/" + c.rank(), () -> {
                for (int r = 0; r < n; r++)
                    Mem.expectPattern(
                            Mem.read(c, b, slot * r, slot),
                            r * 31 + c.rank(),
                            "slot put by rank " + r + " (one of its puts to " + n
                                    + " PEs), read locally once its quiet had returned: quiet completes the puts to every PE, not only to one");
            }));
            for (int r = 0; r < n; r++) side.await("checked/" + r);
            c.barrier();
        }
        step.rethrow();
    }

    /** Runs {@code put} on this thread or on a second platform thread, waiting (bounded) for that thread to end. */
    static void issue(Pe pe, Issuer issuer, Runnable put) {
        if (issuer == Issuer.THIS_THREAD) {
            put.run();
            return;
        }
        Throwable[] failure = new Throwable[1];
        Thread t = Thread.ofPlatform().name("kit-second-thread").start(() -> {
            try {
                put.run();
            } catch (Throwable e) {
                failure[0] = e;
            }
        });
        Duration limit = pe.timeout();
        try {
            if (!t.join(limit))
                throw new AssertionFailedError(
                        "a put from a second thread did not return within " + limit.toMillis() + " ms");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionFailedError("interrupted while a second thread put");
        }
        if (failure[0] instanceof RuntimeException re) throw re;
        if (failure[0] instanceof Error er) throw er;
    }
}
