package dev.unicomm.backend.ascend.internal;

import dev.unicomm.api.CommException;
import dev.unicomm.api.Stream;
import dev.unicomm.api.Team;

/**
 * An aclshmem team ({@code aclshmem_team_t}). Every team unicomm makes is strided in world PEs,
 * so besides the native handle it keeps {@code worldStart + i * worldStride}: PEs outside a split
 * get handle {@code -1} from aclshmem and still know the team's shape. Members translate PEs with
 * {@code aclshmem_team_translate_pe}; the sizes aclshmem reports are cross-checked against the
 * shape, so a binding mistake shows up as an error instead of wrong routing.
 */
final class AscendTeam implements Team {
    static final int WORLD = 0;
    static final int INVALID = -1;

    private final AscendCommunicator comm;
    final int handle;
    private final int worldStart;
    private final int worldStride;
    private final int size;
    private final int rank;

    AscendTeam(AscendCommunicator comm, int handle, int worldStart, int worldStride, int size) {
        this.comm = comm;
        this.handle = handle;
        this.worldStart = worldStart;
        this.worldStride = worldStride;
        this.size = size;
        if (handle != INVALID) {
            int n = AscendNatives.teamNPes(handle);
            if (n != size)
                throw new CommException(
                        "aclshmem_team_n_pes(" + handle + ") = " + n + " but the team was made with " + size + " PEs");
            this.rank = AscendNatives.teamMyPe(handle);
        } else {
            this.rank = -1;
        }
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public int worldRank(int teamRank) {
        if (handle == INVALID) return worldStart + teamRank * worldStride;
        int w = AscendNatives.translatePe(handle, teamRank, WORLD);
        if (w < 0)
            throw new CommException(
                    "aclshmem_team_translate_pe(" + handle + ", " + teamRank + ", world) returned " + w);
        return w;
    }

    @Override
    public Team split(int start, int stride, int n) {
        member("split");
        int h = AscendNatives.splitStrided(handle, start, stride, n);
        return new AscendTeam(comm, h, worldStart + start * worldStride, worldStride * stride, n);
    }

    @Override
    public Split2d split2d(int xRange) {
        member("split2d");
        int[] xy = AscendNatives.split2d(handle, xRange);
        int row = rank / xRange, col = rank % xRange;
        int xSize = Math.min(xRange, size - row * xRange);
        int ySize = (size - col + xRange - 1) / xRange;
        Team x = new AscendTeam(comm, xy[0], worldStart + row * xRange * worldStride, worldStride, xSize);
        Team y = new AscendTeam(comm, xy[1], worldStart + col * worldStride, worldStride * xRange, ySize);
        return new Split2d(x, y);
    }

    /** Completes this PE's RMA, then {@code aclshmemx_barrier_on_stream} on the internal stream, waited for with the timeout. */
    @Override
    public void barrier() {
        member("barrier");
        comm.barrierInternal(handle, "barrier of team " + handle);
    }

    /** Enqueues {@code aclshmemx_quiet_on_stream} then {@code aclshmemx_barrier_on_stream(team)} on {@code stream}; returns at once. */
    @Override
    public void barrier(Stream stream) {
        member("barrier");
        long h = comm.checkStream(stream).handle();
        AscendNatives.quietOnStream(h);
        AscendNatives.barrierOnStream(handle, h);
    }

    @Override
    public void close() {
        if (handle != INVALID && handle != WORLD) AscendNatives.teamDestroy(handle);
    }

    private void member(String what) {
        if (handle == INVALID)
            throw new IllegalStateException(what + ": this PE is not a member of the team (only members may call it)");
    }

    @Override
    public String toString() {
        return "AscendTeam[handle=" + handle + ", world PEs " + worldStart + "+i*" + worldStride + ", size=" + size
                + ", rank=" + rank + "]";
    }
}
