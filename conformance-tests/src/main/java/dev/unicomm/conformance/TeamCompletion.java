package dev.unicomm.conformance;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.Memory;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Team;

/**
 * Bodies of the §2.6 rules on teams split from the world (a backend that completes RMA only in the world
 * team's barrier passes the world-team rules): no quiet before the team barrier.
 */
final class TeamCompletion {
    private TeamCompletion() {}

    static final long BYTES = 64 << 10;
    private static final byte GUARD = (byte) 0xEE;

    /**
     * Over a team split from the world with every PE (a team object of its own, two or more members at two
     * ranks) and, with four ranks or more, over the even ranks: each member puts to the next member, then
     * only the team barrier, then reads locally.
     */
    static void subTeamBarrierCompletes(Pe pe) {
        Communicator c = pe.comm();
        InStep step = new InStep();
        try (Team all = c.world().split(0, 1, c.size())) {
            roundTrip(c, all, "split(0, 1, " + c.size() + ")", step);
        }
        if (c.size() >= 4) {
            try (Team even = c.world().split(0, 2, (c.size() + 1) / 2)) {
                roundTrip(c, even, "split(0, 2, " + (c.size() + 1) / 2 + ")", step);
            }
        }
        c.barrier();
        step.rethrow();
    }

    private static void roundTrip(Communicator c, Team t, String which, InStep step) {
        try (SymmetricBuffer b = c.heap().allocate(BYTES)) {
            Mem.clear(c, b, GUARD);
            c.barrier();
            if (t.rank() >= 0) {
                int next = t.worldRank((t.rank() + 1) % t.size());
                int prevTeamRank = (t.rank() + t.size() - 1) % t.size();
                for (int round = 0; round < 3; round++) {
                    c.rma().put(b, 0, Memory.of(Mem.patterned(BYTES, round * 10 + t.rank())), 0, BYTES, next);
                    t.barrier(); // no quiet: the team barrier completes the caller's RMA
                    int r = round;
                    step.check(() -> Mem.expectPattern(
                            Mem.read(c, b, 0, BYTES),
                            r * 10 + prevTeamRank,
                            "round " + r + ": " + BYTES
                                    + " bytes from team rank " + prevTeamRank + " of " + which
                                    + ", read locally after that team's barrier only"
                                    + " (Team.barrier must complete RMA on every team, not only the world's)"));
                    t.barrier();
                }
            }
            c.barrier();
        }
    }

    /**
     * World rank 0 alone forms a team; it puts to every other PE, calls that team's barrier, and tells them
     * through the side channel; they read locally: a team barrier completes the caller's RMA to every PE,
     * members or not.
     */
    static void teamBarrierCompletesToNonMembers(Pe pe) {
        Communicator c = pe.comm();
        SideChannel side = pe.sideChannel();
        InStep step = new InStep();
        try (Team solo = c.world().split(0, 1, 1);
                SymmetricBuffer b = c.heap().allocate(BYTES)) {
            Mem.clear(c, b, GUARD);
            c.barrier();
            if (solo.rank() == 0) {
                for (int p = 1; p < c.size(); p++)
                    c.rma().put(b, 0, Memory.of(Mem.patterned(BYTES, 70 + p)), 0, BYTES, p);
                solo.barrier();
                side.tell("team-barrier-returned");
                for (int p = 1; p < c.size(); p++) side.await("checked/" + p);
            } else {
                side.await("team-barrier-returned");
                step.check(() -> side.checkThenTell(
                        "checked/" + c.rank(),
                        () -> Mem.expectPattern(
                                Mem.read(c, b, 0, BYTES),
                                70 + c.rank(),
                                BYTES
                                        + " bytes put by rank 0, read locally once the barrier of its one-member team had returned (Team.barrier"
                                        + " completes the caller's RMA to every PE, not only to the team's members)")));
            }
            c.barrier();
        }
        step.rethrow();
    }
}
