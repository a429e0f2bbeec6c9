package dev.unicomm.backend.nvshmem.internal;

import dev.unicomm.api.Team;

/**
 * An NVSHMEM team ({@code nvshmem_team_t}). Membership (world ranks) is computed in Java from the
 * split arguments, the same rule NVSHMEM applies, so non-members know the team's shape too; they
 * hold {@code NVSHMEM_TEAM_INVALID} and {@link #rank()} {@code -1}.
 */
final class NvshmemTeam implements Team {
    /** Handle of a one-PE communicator's teams: no NVSHMEM team, every member is this PE. */
    static final int SELF = -2;

    final NvshmemCommunicator c;
    final int handle;
    private final int[] worldRanks;
    private final int myRank;
    private volatile boolean open = true;

    NvshmemTeam(NvshmemCommunicator c, int handle, int[] worldRanks, boolean track) {
        this.c = c;
        this.handle = handle;
        this.worldRanks = worldRanks;
        int me = -1;
        for (int i = 0; i < worldRanks.length; i++) if (worldRanks[i] == c.rank) me = i;
        this.myRank = handle == NvOps.TEAM_INVALID ? -1 : me;
        if (track && handle != NvOps.TEAM_INVALID) {
            synchronized (c.teams) {
                c.teams.add(this);
            }
        }
    }

    void ensureOpen() {
        c.ensureOpen();
        if (!open) throw new IllegalStateException("team was already closed");
    }

    @Override
    public int rank() {
        return myRank;
    }

    @Override
    public int size() {
        return worldRanks.length;
    }

    @Override
    public int worldRank(int teamRank) {
        if (teamRank < 0 || teamRank >= worldRanks.length)
            throw new IndexOutOfBoundsException(
                    "team rank " + teamRank + " is out of range: the team has ranks 0.." + (worldRanks.length - 1));
        return worldRanks[teamRank];
    }

    @Override
    public Team split(int start, int stride, int size) {
        ensureOpen();
        int[] members = new int[size];
        for (int i = 0; i < size; i++) members[i] = worldRanks[start + i * stride];
        if (myRank < 0) return new NvshmemTeam(c, NvOps.TEAM_INVALID, members, false);
        if (handle == SELF) return new NvshmemTeam(c, SELF, members, false);
        c.lock.lock();
        try {
            int h = WatchedCall.run(
                    c, "nvshmem_team_split_strided", () -> NvOps.teamSplitStrided(handle, start, stride, size));
            return new NvshmemTeam(c, h, members, true);
        } finally {
            c.lock.unlock();
        }
    }

    @Override
    public Split2d split2d(int xRange) {
        ensureOpen();
        int n = worldRanks.length;
        int xr = Math.min(xRange, n);
        if (myRank < 0)
            return new Split2d(
                    new NvshmemTeam(c, NvOps.TEAM_INVALID, new int[0], false),
                    new NvshmemTeam(c, NvOps.TEAM_INVALID, new int[0], false));
        int row = myRank / xr, col = myRank % xr;
        int[] x = new int[Math.min(xr, n - row * xr)];
        for (int i = 0; i < x.length; i++) x[i] = worldRanks[row * xr + i];
        int[] y = new int[(n - col + xr - 1) / xr];
        for (int i = 0; i < y.length; i++) y[i] = worldRanks[col + i * xr];
        if (handle == SELF)
            return new Split2d(new NvshmemTeam(c, handle, x, false), new NvshmemTeam(c, handle, y, false));
        c.lock.lock();
        try {
            int[] h = WatchedCall.run(c, "nvshmem_team_split_2d", () -> NvOps.teamSplit2d(handle, xRange));
            return new Split2d(new NvshmemTeam(c, h[0], x, true), new NvshmemTeam(c, h[1], y, true));
        } finally {
            c.lock.unlock();
        }
    }

    @Override
    public void barrier() {
        ensureOpen();
        if (myRank < 0)
            throw new IllegalStateException("this PE is not a member of the team; only members may call barrier");
        c.lock.lock();
        try {
            c.teamBarrier(handle, c.io.ctrl);
            c.await(c.io.ctrl, "team barrier");
        } finally {
            c.lock.unlock();
        }
    }

    @Override
    public void close() {
        if (handle == NvOps.TEAM_WORLD)
            throw new IllegalStateException("the world team cannot be closed; close the communicator");
        ensureOpen();
        release();
    }

    /** Destroys the NVSHMEM team (collective over its members); non-members hold nothing. */
    void release() {
        synchronized (this) {
            if (!open) return;
            open = false;
        }
        synchronized (c.teams) {
            c.teams.remove(this);
        }
        if (handle != NvOps.TEAM_INVALID && handle != SELF) {
            c.lock.lock();
            try {
                NvOps.teamDestroy(handle);
            } finally {
                c.lock.unlock();
            }
        }
    }
}
