package dev.unicomm.backend.ucx.internal;

import dev.unicomm.api.Team;
import dev.unicomm.spi.Store;

/**
 * A team: an ordered list of world ranks. Splits are collective over the parent and name the child
 * after the parent and the split's sequence number, so members agree on the name without talking.
 * The barrier completes this PE's RMA (quiet) first, then counts the members' arrivals in the store.
 */
final class UcxTeam implements Team {
    private final UcxCommunicator comm;
    private final String id;
    private final int[] members; // team rank -> world rank
    private final int rank;
    private int splits;
    private long barriers;

    UcxTeam(UcxCommunicator comm, String id, int[] members) {
        this.comm = comm;
        this.id = id;
        this.members = members;
        int me = -1;
        for (int i = 0; i < members.length; i++) if (members[i] == comm.rank()) me = i;
        this.rank = me;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return members.length;
    }

    @Override
    public int worldRank(int teamRank) {
        return members[teamRank];
    }

    @Override
    public synchronized Team split(int start, int stride, int size) {
        int[] chosen = new int[size];
        for (int i = 0; i < size; i++) chosen[i] = members[start + i * stride];
        return new UcxTeam(comm, id + "." + splits++, chosen);
    }

    /** OpenSHMEM's split_2d: rows of {@code xRange} consecutive team ranks, columns of equal {@code rank % xRange}. */
    @Override
    public synchronized Split2d split2d(int xRange) {
        int n = members.length, x = Math.min(xRange, n), me = Math.max(rank, 0);
        int row = me / x, col = me % x;
        int rowStart = row * x, rowLen = Math.min(x, n - rowStart);
        int[] rowMembers = new int[rowLen];
        for (int i = 0; i < rowLen; i++) rowMembers[i] = members[rowStart + i];
        int colLen = (n - col + x - 1) / x;
        int[] colMembers = new int[colLen];
        for (int i = 0; i < colLen; i++) colMembers[i] = members[col + i * x];
        int s = splits++;
        return new Split2d(
                new UcxTeam(comm, id + ".x" + s + "." + row, rowMembers),
                new UcxTeam(comm, id + ".y" + s + "." + col, colMembers));
    }

    @Override
    public void barrier() {
        comm.quiet();
        long epoch;
        synchronized (this) {
            epoch = barriers++;
        }
        Store store = comm.store();
        String key = comm.prefix() + "team/" + id + "/barrier/" + epoch;
        if (store.add(key, 1) == members.length) store.set(key + "/done", new byte[] {1});
        else store.get(key + "/done");
    }

    @Override
    public void close() {
        /* a team is a list of ranks: nothing to release */
    }

    @Override
    public String toString() {
        return "UcxTeam[" + id + ", rank " + rank + "/" + members.length + "]";
    }
}
