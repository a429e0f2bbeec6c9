package dev.unicomm.core;

import dev.unicomm.api.Collectives;
import dev.unicomm.api.DType;
import dev.unicomm.api.ReduceOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Team;
import java.util.EnumSet;
import java.util.Set;

/**
 * Validates collective arguments (local checks: sizes, roots, types). Agreement across ranks is the
 * implementation's job. Native implementations get the backend's own buffers and teams; portable
 * ones get the user-facing objects (they call the checked API themselves).
 */
final class CheckedCollectives implements Collectives {
    /** Element types the reductions support. */
    static final Set<DType> REDUCIBLE = EnumSet.of(DType.INT32, DType.INT64, DType.FP32, DType.FP16, DType.BF16);

    private final CheckedCommunicator c;
    private final Collectives impl;
    private final boolean unwrap;

    CheckedCollectives(CheckedCommunicator c, Collectives impl, boolean unwrap) {
        this.c = c;
        this.impl = impl;
        this.unwrap = unwrap;
    }

    private Team team(Team t) {
        Team raw = c.unwrap("team", t);
        if (t.rank() < 0) throw new IllegalStateException("this PE is not a member of the team; only members may call its collectives");
        return unwrap ? raw : t;
    }

    private SymmetricBuffer buf(String what, SymmetricBuffer b, long needBytes) {
        SymmetricBuffer raw = c.unwrap(what, b);
        if (raw.byteSize() < needBytes)
            throw new IllegalArgumentException(what + " holds " + raw.byteSize() + " bytes but the call needs " + needBytes);
        return unwrap ? raw : b;
    }

    private static long bytes(long count, DType dt) {
        Checks.nonNegative("count", count);
        return Math.multiplyExact(count, dt.byteSize());
    }

    private static void reducible(DType dt, ReduceOp op) {
        Checks.notNull("dtype", dt);
        Checks.notNull("reduce op", op);
        if (!REDUCIBLE.contains(dt))
            throw new IllegalArgumentException("reductions support " + REDUCIBLE + ", not " + dt);
    }

    /** Closes the implementation if it owns resources (portable collectives own symmetric scratch memory). */
    void release() {
        if (impl instanceof AutoCloseable ac) {
            try {
                ac.close();
            } catch (Exception e) {
                System.getLogger("dev.unicomm").log(System.Logger.Level.WARNING, "releasing collectives failed", e);
            }
        }
    }

    /** Starts a JFR event for one call (cheap when JFR is off: the object does not escape). */
    private static CollectiveEvent begin() {
        CollectiveEvent e = new CollectiveEvent();
        e.begin();
        return e;
    }

    private void commit(CollectiveEvent e, String op, Team team, long bytes, DType dtype, ReduceOp rop) {
        e.end();
        if (!e.shouldCommit()) return;
        e.operation = op;
        e.teamRank = team.rank();
        e.teamSize = team.size();
        e.bytes = bytes;
        e.dtype = dtype == null ? null : dtype.name();
        e.reduceOp = rop == null ? null : rop.name();
        e.nativeImpl = unwrap;
        e.commit();
    }

    @Override public void barrier(Team team) {
        Team t = team(team);
        CollectiveEvent e = begin();
        impl.barrier(t);
        commit(e, "barrier", team, 0, null, null);
    }

    @Override public void broadcast(Team team, SymmetricBuffer dst, SymmetricBuffer src, long bytes, int root) {
        Checks.nonNegative("bytes", bytes);
        if (root < 0 || root >= team.size())
            throw new IndexOutOfBoundsException("root " + root + " is out of range: the team has ranks 0.." + (team.size() - 1));
        Team t = team(team);
        SymmetricBuffer d = buf("broadcast dst", dst, bytes), s = buf("broadcast src", src, bytes);
        CollectiveEvent e = begin();
        impl.broadcast(t, d, s, bytes, root);
        commit(e, "broadcast", team, bytes, null, null);
    }

    @Override public void allgather(Team team, SymmetricBuffer dst, SymmetricBuffer src, long bytesPerPe) {
        Checks.nonNegative("bytesPerPe", bytesPerPe);
        long total = Math.multiplyExact(bytesPerPe, team.size());
        Team t = team(team);
        SymmetricBuffer d = buf("allgather dst", dst, total), s = buf("allgather src", src, bytesPerPe);
        CollectiveEvent e = begin();
        impl.allgather(t, d, s, bytesPerPe);
        commit(e, "allgather", team, bytesPerPe, null, null);
    }

    @Override public void allreduce(Team team, SymmetricBuffer dst, SymmetricBuffer src, long count, DType dtype, ReduceOp op) {
        reducible(dtype, op);
        long n = bytes(count, dtype);
        Team t = team(team);
        SymmetricBuffer d = buf("allreduce dst", dst, n), s = buf("allreduce src", src, n);
        CollectiveEvent e = begin();
        impl.allreduce(t, d, s, count, dtype, op);
        commit(e, "allreduce", team, n, dtype, op);
    }

    @Override public void reduceScatter(Team team, SymmetricBuffer dst, SymmetricBuffer src, long countPerPe, DType dtype, ReduceOp op) {
        reducible(dtype, op);
        long n = bytes(countPerPe, dtype);
        Team t = team(team);
        SymmetricBuffer d = buf("reduceScatter dst", dst, n), s = buf("reduceScatter src", src, Math.multiplyExact(n, team.size()));
        CollectiveEvent e = begin();
        impl.reduceScatter(t, d, s, countPerPe, dtype, op);
        commit(e, "reduceScatter", team, Math.multiplyExact(n, team.size()), dtype, op);
    }

    @Override public void alltoall(Team team, SymmetricBuffer dst, SymmetricBuffer src, long bytesPerPe) {
        Checks.nonNegative("bytesPerPe", bytesPerPe);
        long total = Math.multiplyExact(bytesPerPe, team.size());
        if (dst == src) throw new IllegalArgumentException("alltoall cannot run in place: dst and src must differ");
        Team t = team(team);
        SymmetricBuffer d = buf("alltoall dst", dst, total), s = buf("alltoall src", src, total);
        CollectiveEvent e = begin();
        impl.alltoall(t, d, s, bytesPerPe);
        commit(e, "alltoall", team, bytesPerPe, null, null);
    }

    @Override public void alltoallv(Team team, SymmetricBuffer dst, long[] recvCounts, long[] recvOffsets,
                                    SymmetricBuffer src, long[] sendCounts, long[] sendOffsets) {
        int n = team.size();
        if (dst == src) throw new IllegalArgumentException("alltoallv cannot run in place: dst and src must differ");
        SymmetricBuffer d = buf("alltoallv dst", dst, 0);
        SymmetricBuffer s = buf("alltoallv src", src, 0);
        checkV("recv", recvCounts, recvOffsets, n, c.unwrap("alltoallv dst", dst).byteSize());
        checkV("send", sendCounts, sendOffsets, n, c.unwrap("alltoallv src", src).byteSize());
        Team t = team(team);
        long sent = 0;
        for (long k : sendCounts) sent += k;
        CollectiveEvent e = begin();
        impl.alltoallv(t, d, recvCounts.clone(), recvOffsets.clone(), s, sendCounts.clone(), sendOffsets.clone());
        commit(e, "alltoallv", team, sent, null, null);
    }

    private static void checkV(String side, long[] counts, long[] offsets, int n, long capacity) {
        Checks.notNull(side + "Counts", counts);
        Checks.notNull(side + "Offsets", offsets);
        if (counts.length != n || offsets.length != n)
            throw new IllegalArgumentException(side + "Counts and " + side + "Offsets must have one entry per team rank ("
                    + n + "), got " + counts.length + " and " + offsets.length);
        for (int i = 0; i < n; i++) Checks.range("alltoallv " + side + " block " + i, offsets[i], counts[i], capacity);
    }
}
