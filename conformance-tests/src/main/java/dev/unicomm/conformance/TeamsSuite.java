package dev.unicomm.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.unicomm.api.Capability;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.Memory;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Team;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/** Barrier semantics, and teams: strided and 2D splits, translation, team barriers. */
public abstract class TeamsSuite extends KitSuite {

    /**
     * Rounds in which each rank writes the round number into its slot on every PE, then a barrier
     * (the world's or the world team's), then checks that every slot shows the round.
     */
    static void phases(Pe pe, boolean teamBarrier) {
        Communicator c = pe.comm();
        int n = c.size();
        try (SymmetricBuffer b = c.heap().allocate(8L * n)) {
            for (long round = 1; round <= 30; round++) {
                for (int p = 0; p < n; p++) c.rma().put(b, 8L * c.rank(), Memory.of(Mem.longs(round)), 0, 8, p);
                c.rma().quiet();
                if (teamBarrier) c.world().barrier();
                else c.barrier();
                for (int r = 0; r < n; r++) {
                    long v = Mem.readLong(c, b, 8L * r);
                    if (v != round)
                        throw new AssertionFailedError(
                                "after barrier " + round + " rank " + r + "'s slot shows " + v
                                        + ": a rank left the barrier before everyone had entered it, or quiet did not complete");
                }
                if (teamBarrier) c.world().barrier();
                else c.barrier();
            }
        }
    }

    /** Verifies §2.5: nothing of the phase after a barrier is seen before it / if it fails, look at the barrier's synchronisation. */
    @Verifies("2.5")
    @Test
    void required_barrier_separates_phases() {
        spmd(pe -> phases(pe, false));
    }

    /** Verifies §2.6: the world team's barrier separates phases / if it fails, look at Team.barrier of the world team. */
    @Verifies("2.6")
    @Test
    void required_barrier_world_team_separates_phases() {
        spmd(pe -> phases(pe, true));
    }

    /** Verifies §2.5: hundreds of barriers in a row neither deadlock nor mix epochs / if it fails, look at barrier epoch/sequence handling. */
    @Verifies("2.5")
    @Test
    void required_barrier_many_in_a_row() {
        spmd(pe -> {
            Communicator c = pe.comm();
            try (SymmetricBuffer b = c.heap().allocate(64)) {
                for (int i = 0; i < 500; i++) c.barrier();
                // still in step: one more exchange must line up
                c.rma().put(b, 0, Memory.of(Mem.longs(c.rank())), 0, 8, (c.rank() + 1) % c.size());
                c.barrier();
                Mem.expectWord(
                        (c.rank() + c.size() - 1) % c.size(),
                        Mem.readLong(c, b, 0),
                        "value from the left neighbour after 500 barriers");
                c.barrier();
            }
        });
    }

    /** Checks a split(start, stride, size) team from this PE's point of view. */
    static void checkStrided(Communicator c, Team t, int start, int stride, int size) {
        int me = c.rank();
        boolean member = me >= start && (me - start) % stride == 0 && (me - start) / stride < size;
        assertEquals(size, t.size(), "team size of split(" + start + ", " + stride + ", " + size + ")");
        assertEquals(member ? (me - start) / stride : -1, t.rank(), "team rank of world rank " + me);
        for (int i = 0; i < size; i++) assertEquals(start + i * stride, t.worldRank(i), "world rank of team rank " + i);
    }

    /** Verifies §6.2: strided splits give members their ranks in order and non-members rank -1 / if it fails, look at Team.split's member arithmetic. */
    @Verifies("6.2")
    @Test
    void optional_teams_split_strided_even() {
        spmd(Capability.TEAMS, pe -> {
            Communicator c = pe.comm();
            int size = (c.size() + 1) / 2;
            try (Team t = c.world().split(0, 2, size)) {
                checkStrided(c, t, 0, 2, size);
            }
        });
    }

    /** Verifies §6.2: strided splits give members their ranks in order and non-members rank -1 / if it fails, look at Team.split's member arithmetic. */
    @Verifies("6.2")
    @Test
    void optional_teams_split_strided_odd() {
        assumeRanks(2);
        spmd(Capability.TEAMS, pe -> {
            Communicator c = pe.comm();
            int size = c.size() / 2;
            try (Team t = c.world().split(1, 2, size)) {
                checkStrided(c, t, 1, 2, size);
            }
        });
    }

    /** Verifies §6.2: strided splits give members their ranks in order and non-members rank -1 / if it fails, look at Team.split's member arithmetic. */
    @Verifies("6.2")
    @Test
    void optional_teams_split_contiguous_tail() {
        spmd(Capability.TEAMS, pe -> {
            Communicator c = pe.comm();
            int start = c.size() / 2;
            try (Team t = c.world().split(start, 1, c.size() - start)) {
                checkStrided(c, t, start, 1, c.size() - start);
            }
        });
    }

    /** Verifies §6.2: strided splits give members their ranks in order and non-members rank -1 / if it fails, look at Team.split's member arithmetic. */
    @Verifies("6.2")
    @Test
    void optional_teams_split_single_pe() {
        spmd(Capability.TEAMS, pe -> {
            Communicator c = pe.comm();
            int last = c.size() - 1;
            try (Team t = c.world().split(last, 1, 1)) {
                checkStrided(c, t, last, 1, 1);
                if (t.rank() == 0) t.barrier(); // a team of one: its barrier returns at once
            }
        });
    }

    /** Verifies §6.2: split2d builds OpenSHMEM's rows and columns / if it fails, look at Team.split2d. */
    @Verifies("6.2")
    @Test
    void optional_teams_split_2d() {
        spmd(Capability.TEAMS, pe -> {
            Communicator c = pe.comm();
            int n = c.size(), me = c.rank(), xRange = 2;
            int x = Math.min(xRange, n);
            Team.Split2d s = c.world().split2d(xRange);
            try (Team row = s.x();
                    Team col = s.y()) {
                int rowStart = me / x * x;
                assertEquals(Math.min(x, n - rowStart), row.size(), "x (row) team size");
                assertEquals(me % x, row.rank(), "x (row) team rank");
                for (int i = 0; i < row.size(); i++) assertEquals(rowStart + i, row.worldRank(i), "row member " + i);
                int colSize = (n - me % x + x - 1) / x;
                assertEquals(colSize, col.size(), "y (column) team size");
                assertEquals(me / x, col.rank(), "y (column) team rank");
                for (int i = 0; i < col.size(); i++)
                    assertEquals(me % x + i * x, col.worldRank(i), "column member " + i);
                row.barrier();
                col.barrier();
            }
        });
    }

    /** Verifies §6.2: translate maps ranks between teams, -1 for non-members / if it fails, look at Team.translate. */
    @Verifies("6.2")
    @Test
    void optional_teams_translate() {
        spmd(Capability.TEAMS, pe -> {
            Communicator c = pe.comm();
            Team world = c.world();
            int size = (c.size() + 1) / 2;
            try (Team even = world.split(0, 2, size)) {
                for (int i = 0; i < even.size(); i++)
                    assertEquals(2 * i, even.translate(i, world), "even team rank " + i + " in world");
                for (int w = 0; w < c.size(); w++)
                    assertEquals(
                            w % 2 == 0 ? w / 2 : -1, world.translate(w, even), "world rank " + w + " in the even team");
            }
        });
    }

    /** Verifies §2.6: a sub-team barrier completes and orders RMA among its members / if it fails, look at Team.barrier: it must quiet before synchronising. */
    @Verifies("2.6")
    @Test
    void optional_teams_team_barrier_and_rma() {
        assumeRanks(3); // the even ranks of two form a team of one: nothing to check
        spmd(Capability.TEAMS, pe -> {
            Communicator c = pe.comm();
            int size = (c.size() + 1) / 2;
            try (Team t = c.world().split(0, 2, size);
                    SymmetricBuffer b = c.heap().allocate(64)) {
                Mem.write(c, b, 0, Mem.longs(-1));
                c.barrier();
                if (t.rank() >= 0) {
                    int next = t.worldRank((t.rank() + 1) % t.size());
                    for (int round = 0; round < 10; round++) {
                        c.rma().put(b, 0, Memory.of(Mem.longs(round * 100L + t.rank())), 0, 8, next);
                        c.rma().quiet();
                        t.barrier();
                        int prevTeamRank = (t.rank() + t.size() - 1) % t.size();
                        Mem.expectWord(
                                round * 100L + prevTeamRank,
                                Mem.readLong(c, b, 0),
                                "round " + round + " value from team rank " + prevTeamRank);
                        t.barrier();
                    }
                }
                c.barrier();
            }
        });
    }

    /** Verifies §6.2: strided splits give members their ranks in order and non-members rank -1 / if it fails, look at Team.split's member arithmetic. */
    @Verifies("6.2")
    @Test
    void optional_teams_nested_split() {
        spmd(Capability.TEAMS, pe -> {
            Communicator c = pe.comm();
            try (Team all = c.world().split(0, 1, c.size());
                    Team tail = all.split(all.size() - 1, 1, 1)) {
                checkStrided(c, all, 0, 1, c.size());
                assertEquals(1, tail.size(), "team of one split from a split");
                assertEquals(c.size() - 1, tail.worldRank(0), "its world rank");
                assertEquals(c.rank() == c.size() - 1 ? 0 : -1, tail.rank(), "its team rank here");
            }
        });
    }

    /** Verifies §6.2: splitting and closing teams repeatedly leaks nothing / if it fails, look at team resources released on close. */
    @Verifies("6.2")
    @Test
    void optional_teams_split_close_cycles() {
        spmd(Capability.TEAMS, pe -> {
            Communicator c = pe.comm();
            for (int i = 0; i < 30; i++) {
                int start = i % c.size();
                try (Team t = c.world().split(start, 1, c.size() - start)) {
                    if (t.rank() >= 0) t.barrier();
                }
            }
            c.barrier();
        });
    }

    /**
     * Verifies §2.6 on teams split from the world, with no quiet before the team barrier / if it fails, look at
     * Team.barrier of split teams: it must complete the caller's RMA as the world team's barrier does.
     */
    @Verifies("2.6")
    @Test
    void optional_teams_sub_team_barrier_completes_puts() {
        spmd(Capability.TEAMS, TeamCompletion::subTeamBarrierCompletes);
    }

    /** Verifies §2.6 ("completes the calling PE's outstanding RMA to every PE") / if it fails, look at Team.barrier completing only the RMA to the team's members. */
    @Verifies("2.6")
    @Test
    void optional_teams_team_barrier_completes_puts_to_non_members() {
        assumeRanks(2);
        spmd(Capability.TEAMS, TeamCompletion::teamBarrierCompletesToNonMembers);
    }
}
