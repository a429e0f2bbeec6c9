package dev.unicomm.spi.support;

import dev.unicomm.api.Team;
import java.util.Arrays;

/**
 * A team that is an ordered list of world ranks (team rank {@code i} is world rank
 * {@code members[i]}), with the arithmetic of its splits; a subclass gives the barrier and makes the
 * new teams.
 */
public abstract class RankListTeam implements Team {
    private final int[] members;
    private final int rank;

    /**
     * @param members the world rank of each team rank (kept, not copied)
     * @param rank this PE's team rank, {@code -1} if it is not a member
     */
    protected RankListTeam(int[] members, int rank) {
        this.members = members;
        this.rank = rank;
    }

    /** The index of {@code worldRank} in {@code members}, or {@code -1}: a PE's team rank from its world rank. */
    protected static int indexOf(int[] members, int worldRank) {
        for (int i = 0; i < members.length; i++) if (members[i] == worldRank) return i;
        return -1;
    }

    @Override
    public final int rank() {
        return rank;
    }

    @Override
    public final int size() {
        return members.length;
    }

    @Override
    public final int worldRank(int teamRank) {
        return members[teamRank];
    }

    /** The world ranks of this team's ranks {@code start, start + stride, …} ({@code size} of them), as {@link #split} takes them. */
    protected final int[] pick(int start, int stride, int size) {
        int[] picked = new int[size];
        for (int i = 0; i < size; i++) picked[i] = members[start + i * stride];
        return picked;
    }

    /**
     * {@link #split2d}'s shape for this PE (a non-member is placed as team rank 0): rows of
     * {@code xRange} consecutive team ranks (at most the team's size), columns of equal
     * {@code rank % xRange}.
     */
    protected final Grid grid(int xRange) {
        int n = members.length;
        int x = Math.min(xRange, n);
        int me = Math.max(rank, 0);
        int row = me / x, col = me % x;
        int rowStart = row * x;
        int[] rowMembers = Arrays.copyOfRange(members, rowStart, Math.min(rowStart + x, n));
        int[] colMembers = new int[(n - col + x - 1) / x];
        for (int i = 0; i < colMembers.length; i++) colMembers[i] = members[col + i * x];
        return new Grid(row, col, rowMembers, colMembers);
    }

    /**
     * This PE's place in a 2-D split: its row and column, and their members as world ranks (its team
     * rank in the row is {@code col}, in the column {@code row}).
     */
    protected record Grid(int row, int col, int[] rowMembers, int[] colMembers) {}

    /** The world ranks of the members, by team rank, for messages. */
    protected final String membersText() {
        return Arrays.toString(members);
    }
}
