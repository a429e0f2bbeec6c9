package dev.unicomm.backend.rdma.internal;

import dev.unicomm.api.Team;
import dev.unicomm.spi.Store;
import java.nio.charset.StandardCharsets;

/**
 * A team: an ordered list of world ranks. Splits are collective over the parent and name the new
 * team deterministically (parent id + split count), so every member agrees on it without talking.
 * The barrier completes this PE's RMA, then counts arrivals in the rendezvous store.
 */
final class RdmaTeam implements Team {
    private final RdmaCommunicator comm;
    private final String id;
    private final int[] members; // team rank -> world rank
    private final int myRank;
    private int splits;
    private long barriers;

    RdmaTeam(RdmaCommunicator comm, String id, int[] members) {
        this.comm = comm;
        this.id = id;
        this.members = members;
        int me = -1;
        for (int i = 0; i < members.length; i++) if (members[i] == comm.rank()) me = i;
        this.myRank = me;
    }

    @Override
    public int rank() {
        return myRank;
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
        int[] sub = new int[size];
        for (int i = 0; i < size; i++) sub[i] = members[start + i * stride];
        return new RdmaTeam(comm, id + "." + (splits++), sub);
    }

    @Override
    public synchronized Split2d split2d(int xRange) {
        int n = members.length;
        int x = Math.min(xRange, n);
        int me = Math.max(myRank, 0);
        int row = me / x, col = me % x;
        int rowStart = row * x;
        int rowLen = Math.min(x, n - rowStart);
        int[] rowMembers = new int[rowLen];
        for (int i = 0; i < rowLen; i++) rowMembers[i] = members[rowStart + i];
        int colLen = (n - col + x - 1) / x;
        int[] colMembers = new int[colLen];
        for (int i = 0; i < colLen; i++) colMembers[i] = members[col + i * x];
        int s = splits++;
        // Ids carry the row/column so different rows (columns) get different teams.
        return new Split2d(
                new RdmaTeam(comm, id + ".x" + s + "r" + row, rowMembers),
                new RdmaTeam(comm, id + ".y" + s + "c" + col, colMembers));
    }

    @Override
    public void barrier() {
        comm.rmaEngine().quiet();
        Store store = comm.store();
        long epoch;
        synchronized (this) {
            epoch = barriers++;
        }
        String key = comm.prefix() + "team/" + id + "/barrier/" + epoch;
        long arrived = store.add(key, 1);
        if (arrived == members.length) store.set(key + "/done", "1".getBytes(StandardCharsets.UTF_8));
        else store.get(key + "/done");
    }

    @Override
    public void close() {
        /* nothing native: a team is a list of ranks */
    }

    @Override
    public String toString() {
        return "RdmaTeam[" + id + ", rank " + myRank + "/" + members.length + "]";
    }
}
