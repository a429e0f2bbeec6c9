package dev.unicomm.testsupport.threads;

import dev.unicomm.api.Team;
import dev.unicomm.spi.support.RankListTeam;

/** A team of thread-PEs: a list of world ranks (splits are local arithmetic here). */
final class ThreadTeam extends RankListTeam {
    private final ThreadComm comm;

    ThreadTeam(ThreadComm comm, int[] members) {
        super(members, indexOf(members, comm.rank));
        this.comm = comm;
    }

    @Override
    public Team split(int start, int stride, int size) {
        return new ThreadTeam(comm, pick(start, stride, size));
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
