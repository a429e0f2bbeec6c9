package dev.unicomm.internal.checked;

import dev.unicomm.api.Collectives;
import dev.unicomm.api.DType;
import dev.unicomm.api.ReduceOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Team;
import dev.unicomm.spi.AlgorithmCounts;
import dev.unicomm.spi.LocalReduction;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;

/**
 * Validates collective arguments (local checks: sizes, roots, types), then has the team agree on the
 * call ({@link CallLedger}: same collective, count, dtype, op, root; a rank whose own arguments
 * were bad fails every member). A small allreduce whose implementation offers {@link LocalReduction}
 * (and a small broadcast or allgather, which need only copies) carries its data in that agreement
 * when the backend's agreement can (one round, not two). Pair-wise agreement (alltoallv counts) is the implementation's job. Native implementations get the backend's own buffers and teams; portable
 * ones get the user-facing objects (they call the checked API themselves).
 */
final class CheckedCollectives implements Collectives {
    /** Element types the reductions support. */
    static final Set<DType> REDUCIBLE = EnumSet.of(DType.INT32, DType.INT64, DType.FP32, DType.FP16, DType.BF16);

    private final CheckedCommunicator c;
    private final Collectives impl;
    private final boolean unwrap;
    /** The implementation's local arithmetic, if it offers it: small reductions then ride in the call agreement. */
    private final LocalReduction local;
    /** Calls this layer finished itself (carried in the agreement) or whose implementation does not say which algorithm ran. */
    private final AlgorithmTally tally = new AlgorithmTally();

    CheckedCollectives(CheckedCommunicator c, Collectives impl, boolean unwrap) {
        this.c = c;
        this.impl = impl;
        this.unwrap = unwrap;
        this.local = impl instanceof LocalReduction lr ? lr : null;
    }

    private Team team(Team t) {
        Team raw = c.unwrap("team", t);
        if (t.rank() < 0)
            throw new IllegalStateException(
                    "this PE is not a member of the team; only members may call its collectives");
        return unwrap ? raw : t;
    }

    private SymmetricBuffer buf(String what, SymmetricBuffer b, long needBytes) {
        SymmetricBuffer raw = c.unwrap(what, b);
        if (raw.byteSize() < needBytes)
            throw new IllegalArgumentException(
                    what + " holds " + raw.byteSize() + " bytes but the call needs " + needBytes);
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

    /**
     * Calls by {@code operation/algorithm}: the implementation's own counts where it keeps them, calls whose data
     * rode in the call agreement as {@code carried}, and an implementation's that does not say as {@code native}.
     */
    java.util.Map<String, Long> algorithmCounts() {
        return AlgorithmTally.sum(
                impl instanceof AlgorithmCounts ac ? ac.algorithmCounts() : java.util.Map.of(), tally);
    }

    /** Closes the implementation if it owns resources (portable collectives own symmetric scratch memory). */
    void release() {
        if (impl instanceof AutoCloseable ac) {
            try {
                ac.close();
            } catch (dev.unicomm.api.CommException e) {
                // The job already failed (the caller got that exception); close() stays quiet.
                System.getLogger("dev.unicomm")
                        .log(System.Logger.Level.DEBUG, "collectives scratch not freed: " + e.getMessage());
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
        if (!(impl instanceof AlgorithmCounts)) tally.add(op + "/native");
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

    /** One call: team checks (local), then argument checks and agreement over the team, then the call. */
    private void call(Team team, CallLedger.Op op, CallLedger.Check check, Runnable body) {
        team(team);
        CheckedTeam ct = (CheckedTeam) team;
        c.calls().call(ct.calls, ct.raw, op, check, body);
    }

    @Override
    public void broadcast(Team team, SymmetricBuffer dst, SymmetricBuffer src, long count, DType dtype, int root) {
        if (local != null && carries(team, count, dtype)) {
            broadcastCarried((CheckedTeam) team, dst, src, count, dtype, root);
            return;
        }
        call(
                team,
                CallLedger.Op.BROADCAST,
                () -> {
                    checkBroadcast(team, dst, src, count, dtype, root);
                    return CallLedger.args(count, CallLedger.pack(dtype, root));
                },
                () -> {
                    CollectiveEvent e = begin();
                    impl.broadcast(
                            team(team), buf("broadcast dst", dst, 0), buf("broadcast src", src, 0), count, dtype, root);
                    commit(e, "broadcast", team, count * dtype.byteSize(), dtype, null);
                });
    }

    private void checkBroadcast(
            Team team, SymmetricBuffer dst, SymmetricBuffer src, long count, DType dtype, int root) {
        long n = bytes(count, typed(dtype));
        if (root < 0 || root >= team.size())
            throw new IndexOutOfBoundsException(
                    "root " + root + " is out of range: the team has ranks 0.." + (team.size() - 1));
        buf("broadcast dst", dst, n);
        buf("broadcast src", src, n);
    }

    /** A small broadcast in one round: the root's data rides in the call agreement. */
    private void broadcastCarried(
            CheckedTeam team, SymmetricBuffer dst, SymmetricBuffer src, long count, DType dtype, int root) {
        CallLedger calls = c.calls();
        try {
            checkBroadcast(team, dst, src, count, dtype, root);
        } catch (RuntimeException e) {
            calls.rejected(team.calls, team.raw, CallLedger.Op.BROADCAST, e);
            throw e;
        }
        long bytes = count * dtype.byteSize();
        boolean isRoot = team.rank() == root;
        CollectiveEvent e = begin();
        MemorySegment[] inputs = calls.agreeCarrying(
                team.calls,
                team.raw,
                CallLedger.Op.BROADCAST,
                count,
                CallLedger.pack(dtype, root),
                isRoot ? src.segment() : null,
                isRoot ? bytes : 0);
        if (!isRoot) MemorySegment.copy(inputs[root], 0, dst.segment(), 0, bytes);
        else if (!same(dst, src)) MemorySegment.copy(src.segment(), 0, dst.segment(), 0, bytes);
        tally.add("broadcast/carried");
        commit(e, "broadcast", team, bytes, dtype, null);
    }

    @Override
    public void allgather(Team team, SymmetricBuffer dst, SymmetricBuffer src, long countPerPe, DType dtype) {
        if (local != null && carries(team, countPerPe, dtype)) {
            allgatherCarried((CheckedTeam) team, dst, src, countPerPe, dtype);
            return;
        }
        call(
                team,
                CallLedger.Op.ALLGATHER,
                () -> {
                    checkAllgather(team, dst, src, countPerPe, dtype);
                    return CallLedger.args(countPerPe, CallLedger.pack(dtype));
                },
                () -> {
                    CollectiveEvent e = begin();
                    impl.allgather(
                            team(team), buf("allgather dst", dst, 0), buf("allgather src", src, 0), countPerPe, dtype);
                    commit(e, "allgather", team, countPerPe * dtype.byteSize(), dtype, null);
                });
    }

    private void checkAllgather(Team team, SymmetricBuffer dst, SymmetricBuffer src, long countPerPe, DType dtype) {
        long n = bytes(countPerPe, typed(dtype));
        buf("allgather dst", dst, Math.multiplyExact(n, team.size()));
        buf("allgather src", src, n);
    }

    /**
     * A small allgather in one round: every member's block rides in the call agreement. In place
     * ({@code dst == src}) a member's block is block {@code rank} of the buffer, as on the other paths.
     */
    private void allgatherCarried(
            CheckedTeam team, SymmetricBuffer dst, SymmetricBuffer src, long countPerPe, DType dtype) {
        CallLedger calls = c.calls();
        try {
            checkAllgather(team, dst, src, countPerPe, dtype);
        } catch (RuntimeException e) {
            calls.rejected(team.calls, team.raw, CallLedger.Op.ALLGATHER, e);
            throw e;
        }
        long b = countPerPe * dtype.byteSize();
        int r = team.rank();
        boolean inPlace = same(dst, src);
        MemorySegment mine = inPlace ? src.segment().asSlice(r * b, b) : src.segment();
        CollectiveEvent e = begin();
        MemorySegment[] inputs = calls.agreeCarrying(
                team.calls, team.raw, CallLedger.Op.ALLGATHER, countPerPe, CallLedger.pack(dtype), mine, b);
        MemorySegment out = dst.segment();
        for (int p = 0; p < inputs.length; p++) {
            if (p != r) MemorySegment.copy(inputs[p], 0, out, p * b, b);
            else if (!inPlace) MemorySegment.copy(mine, 0, out, r * b, b);
        }
        tally.add("allgather/carried");
        commit(e, "allgather", team, b, dtype, null);
    }

    /** The same buffer, as the implementations judge in-place calls. */
    private static boolean same(SymmetricBuffer a, SymmetricBuffer b) {
        return a == b || a.offset() == b.offset();
    }

    @Override
    public void allreduce(Team team, SymmetricBuffer dst, SymmetricBuffer src, long count, DType dtype, ReduceOp op) {
        if (local != null && carries(team, count, dtype)) {
            allreduceCarried((CheckedTeam) team, dst, src, count, dtype, op);
            return;
        }
        call(
                team,
                CallLedger.Op.ALLREDUCE,
                () -> {
                    checkAllreduce(dst, src, count, dtype, op);
                    return CallLedger.args(count, CallLedger.pack(dtype, op));
                },
                () -> {
                    CollectiveEvent e = begin();
                    impl.allreduce(
                            team(team), buf("allreduce dst", dst, 0), buf("allreduce src", src, 0), count, dtype, op);
                    commit(e, "allreduce", team, count * dtype.byteSize(), dtype, op);
                });
    }

    private void checkAllreduce(SymmetricBuffer dst, SymmetricBuffer src, long count, DType dtype, ReduceOp op) {
        reducible(dtype, op);
        long n = bytes(count, dtype);
        buf("allreduce dst", dst, n);
        buf("allreduce src", src, n);
    }

    /** Whether this call's data may ride in the call agreement (team checks are local and run here). */
    private boolean carries(Team team, long count, DType dtype) {
        team(team);
        return dtype != null
                && count >= 0
                && count <= Long.MAX_VALUE / 8
                && c.calls().canCarry(count * dtype.byteSize());
    }

    /**
     * A small allreduce in one round: the agreement exchange carries every member's input, then each
     * member reduces them with the implementation's arithmetic. No lambdas, no per-call arrays.
     */
    private void allreduceCarried(
            CheckedTeam team, SymmetricBuffer dst, SymmetricBuffer src, long count, DType dtype, ReduceOp op) {
        CallLedger calls = c.calls();
        try {
            checkAllreduce(dst, src, count, dtype, op);
        } catch (RuntimeException e) {
            calls.rejected(team.calls, team.raw, CallLedger.Op.ALLREDUCE, e);
            throw e;
        }
        long bytes = count * dtype.byteSize();
        CollectiveEvent e = begin();
        MemorySegment[] inputs = calls.agreeCarrying(
                team.calls, team.raw, CallLedger.Op.ALLREDUCE, count, CallLedger.pack(dtype, op), src.segment(), bytes);
        local.reduceLocally(dtype, op, inputs, dst.segment(), count);
        tally.add("allreduce/carried");
        commit(e, "allreduce", team, bytes, dtype, op);
    }

    @Override
    public void reduceScatter(
            Team team, SymmetricBuffer dst, SymmetricBuffer src, long countPerPe, DType dtype, ReduceOp op) {
        call(
                team,
                CallLedger.Op.REDUCE_SCATTER,
                () -> {
                    reducible(dtype, op);
                    long n = bytes(countPerPe, dtype);
                    buf("reduceScatter dst", dst, n);
                    buf("reduceScatter src", src, Math.multiplyExact(n, team.size()));
                    return CallLedger.args(countPerPe, CallLedger.pack(dtype, op));
                },
                () -> {
                    CollectiveEvent e = begin();
                    impl.reduceScatter(
                            team(team),
                            buf("reduceScatter dst", dst, 0),
                            buf("reduceScatter src", src, 0),
                            countPerPe,
                            dtype,
                            op);
                    commit(e, "reduceScatter", team, countPerPe * dtype.byteSize() * team.size(), dtype, op);
                });
    }

    @Override
    public void alltoall(Team team, SymmetricBuffer dst, SymmetricBuffer src, long countPerPe, DType dtype) {
        call(
                team,
                CallLedger.Op.ALLTOALL,
                () -> {
                    long total = Math.multiplyExact(bytes(countPerPe, typed(dtype)), team.size());
                    if (dst == src)
                        throw new IllegalArgumentException("alltoall cannot run in place: dst and src must differ");
                    buf("alltoall dst", dst, total);
                    buf("alltoall src", src, total);
                    return CallLedger.args(countPerPe, CallLedger.pack(dtype));
                },
                () -> {
                    CollectiveEvent e = begin();
                    impl.alltoall(
                            team(team), buf("alltoall dst", dst, 0), buf("alltoall src", src, 0), countPerPe, dtype);
                    commit(e, "alltoall", team, countPerPe * dtype.byteSize(), dtype, null);
                });
    }

    @Override
    public void alltoallv(
            Team team,
            SymmetricBuffer dst,
            long[] recvCounts,
            long[] recvOffsets,
            SymmetricBuffer src,
            long[] sendCounts,
            long[] sendOffsets,
            DType dtype) {
        call(
                team,
                CallLedger.Op.ALLTOALLV,
                () -> {
                    int n = team.size();
                    typed(dtype);
                    if (dst == src)
                        throw new IllegalArgumentException("alltoallv cannot run in place: dst and src must differ");
                    buf("alltoallv dst", dst, 0);
                    buf("alltoallv src", src, 0);
                    checkV(
                            "recv",
                            recvCounts,
                            recvOffsets,
                            n,
                            c.unwrap("alltoallv dst", dst).byteSize() / dtype.byteSize());
                    checkV(
                            "send",
                            sendCounts,
                            sendOffsets,
                            n,
                            c.unwrap("alltoallv src", src).byteSize() / dtype.byteSize());
                    return CallLedger.args(0, CallLedger.pack(dtype));
                },
                () -> {
                    long sent = 0;
                    for (long k : sendCounts) sent += k;
                    CollectiveEvent e = begin();
                    impl.alltoallv(
                            team(team),
                            buf("alltoallv dst", dst, 0),
                            recvCounts.clone(),
                            recvOffsets.clone(),
                            buf("alltoallv src", src, 0),
                            sendCounts.clone(),
                            sendOffsets.clone(),
                            dtype);
                    commit(e, "alltoallv", team, sent * dtype.byteSize(), dtype, null);
                });
    }

    private static DType typed(DType dtype) {
        return Checks.notNull("dtype", dtype);
    }

    private static void checkV(String side, long[] counts, long[] offsets, int n, long capacity) {
        Checks.notNull(side + "Counts", counts);
        Checks.notNull(side + "Offsets", offsets);
        if (counts.length != n || offsets.length != n)
            throw new IllegalArgumentException(
                    side + "Counts and " + side + "Offsets must have one entry per team rank (" + n + "), got "
                            + counts.length + " and " + offsets.length);
        // In elements: capacity is the buffer's size in whole elements of the call's dtype.
        for (int i = 0; i < n; i++)
            Checks.range("alltoallv " + side + " block " + i + " (elements)", offsets[i], counts[i], capacity);
    }
}
