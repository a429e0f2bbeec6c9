package dev.unicomm.internal.checked;

import dev.unicomm.api.Stream;
import dev.unicomm.api.Team;

/** Validates team arguments; the world team refuses to close. */
final class CheckedTeam implements Team {
    final CheckedCommunicator owner;
    final Team raw;
    private final boolean world;
    /** Collective calls made on this team so far (sequence of the call agreement). */
    final CallLedger.Counter calls = new CallLedger.Counter();

    private volatile boolean open = true;

    CheckedTeam(CheckedCommunicator owner, Team raw, boolean world) {
        this.owner = owner;
        this.raw = raw;
        this.world = world;
    }

    void ensureOpen() {
        owner.ensureOpen();
        if (!open) throw new IllegalStateException("team was already closed");
    }

    @Override
    public int rank() {
        return raw.rank();
    }

    @Override
    public int size() {
        return raw.size();
    }

    @Override
    public int worldRank(int teamRank) {
        ensureOpen();
        if (teamRank < 0 || teamRank >= raw.size())
            throw new IndexOutOfBoundsException(
                    "team rank " + teamRank + " is out of range: the team has ranks 0.." + (raw.size() - 1));
        return raw.worldRank(teamRank);
    }

    @Override
    public int translate(int teamRank, Team dest) {
        Checks.notNull("destination team", dest);
        return Team.super.translate(teamRank, dest);
    }

    @Override
    public Team split(int start, int stride, int size) {
        ensureOpen();
        member("split");
        return owner.calls()
                .call(
                        calls,
                        raw,
                        CallLedger.Op.SPLIT,
                        () -> {
                            int n = raw.size();
                            if (start < 0 || start >= n)
                                throw new IndexOutOfBoundsException(
                                        "split start " + start + " is out of range 0.." + (n - 1));
                            if (stride < 1)
                                throw new IllegalArgumentException("split stride must be >= 1, got " + stride);
                            if (size < 1) throw new IllegalArgumentException("split size must be >= 1, got " + size);
                            long last = start + (long) stride * (size - 1);
                            if (last >= n)
                                throw new IndexOutOfBoundsException(
                                        "split(start=" + start + ", stride=" + stride + ", size=" + size
                                                + ") reaches team rank " + last + " but the team has " + n + " ranks");
                            return CallLedger.args((start & 0xFFFF_FFFFL) | (long) stride << 32, size);
                        },
                        () -> new CheckedTeam(owner, raw.split(start, stride, size), false));
    }

    @Override
    public Split2d split2d(int xRange) {
        ensureOpen();
        member("split2d");
        return owner.calls()
                .call(
                        calls,
                        raw,
                        CallLedger.Op.SPLIT_2D,
                        () -> {
                            if (xRange < 1)
                                throw new IllegalArgumentException("split2d xRange must be >= 1, got " + xRange);
                            return CallLedger.args(xRange, 0);
                        },
                        () -> {
                            Split2d s = raw.split2d(xRange);
                            return new Split2d(
                                    new CheckedTeam(owner, s.x(), false), new CheckedTeam(owner, s.y(), false));
                        });
    }

    private void member(String op) {
        if (raw.rank() < 0)
            throw new IllegalStateException("this PE is not a member of the team; only members may call " + op);
    }

    @Override
    public void barrier() {
        ensureOpen();
        member("barrier");
        BarrierEvent e = new BarrierEvent();
        e.begin();
        owner.calls().barrier(calls, raw, raw::barrier);
        e.end();
        if (e.shouldCommit()) {
            e.rank = raw.rank();
            e.teamSize = raw.size();
            e.commit();
        }
    }

    @Override
    public void barrier(Stream stream) {
        ensureOpen();
        Checks.notNull("stream", stream);
        if (!stream.isOpen())
            throw new IllegalStateException("stream 0x" + Long.toHexString(stream.handle()) + " is closed");
        if (raw.rank() < 0)
            throw new IllegalStateException("this PE is not a member of the team; only members may call barrier");
        raw.barrier(stream);
    }

    @Override
    public void close() {
        if (world) throw new IllegalStateException("the world team cannot be closed; close the communicator");
        if (owner.released()) { // released by shrink(): the backend's team went with it
            open = false;
            return;
        }
        ensureOpen();
        open = false;
        raw.close();
    }
}
