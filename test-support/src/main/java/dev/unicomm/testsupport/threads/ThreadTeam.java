package dev.unicomm.testsupport.threads;

import dev.unicomm.api.Team;

/** A team of thread-PEs: a list of world ranks (splits are local arithmetic here). */
final class ThreadTeam implements Team {
    private final ThreadComm comm;
    private final int[] members;

    ThreadTeam(ThreadComm comm, int[] members) {
        this.comm = comm;
        this.members = members;
    }

    @Override
    public int rank() {
        for (int i = 0; i < members.length; i++) if (members[i] == comm.rank) return i;
        return -1;
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
    public Team split(int start, int stride, int size) {
        int[] m = new int[size];
        for (int i = 0; i < size; i++) m[i] = members[start + i * stride];
        return new ThreadTeam(comm, m);
    }

    @Override
    public Split2d split2d(int xRange) {
        throw new UnsupportedOperationException("the thread double has no 2-D team split");
    }

    @Override
    public void barrier() {
        throw new UnsupportedOperationException(
                "the thread double has no team barrier (the world barrier is comm.barrier())");
    }

    @Override
    public void close() {}
}
