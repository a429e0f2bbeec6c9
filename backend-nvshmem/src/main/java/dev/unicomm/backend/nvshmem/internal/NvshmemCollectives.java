package dev.unicomm.backend.nvshmem.internal;

import dev.unicomm.api.Collectives;
import dev.unicomm.api.DType;
import dev.unicomm.api.ReduceOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Team;
import java.lang.foreign.ValueLayout;

/**
 * NVSHMEM's team collectives ({@code nvshmemx_*_on_stream}) on the internal stream, waited for with
 * the timeout. Arguments arrive validated (sizes, roots, types) from the API layer. Where source
 * and destination overlap, the source is first copied into the communicator's symmetric scratch
 * (NVSHMEM needs distinct buffers); allreduce goes through it chunk by chunk, the others need the
 * whole source to fit ({@code unicomm.nvshmem.scratchBytes}, default 4 MiB). Reductions of BF16 and
 * FP16 are NVSHMEM's: with more than two PEs they may round after each step rather than once.
 */
final class NvshmemCollectives implements Collectives {
    private final NvshmemCommunicator c;

    NvshmemCollectives(NvshmemCommunicator c) {
        this.c = c;
    }

    private static NvshmemTeam team(Team t) {
        if (t instanceof NvshmemTeam nt) {
            nt.ensureOpen();
            return nt;
        }
        throw new IllegalArgumentException("team does not belong to this NVSHMEM communicator");
    }

    private static NvshmemBuffer buf(SymmetricBuffer b, String what) {
        if (b instanceof NvshmemBuffer nb) {
            nb.ensureOpen(what);
            return nb;
        }
        throw new IllegalArgumentException(what + ": " + b + " is not a buffer of this NVSHMEM heap");
    }

    private static boolean overlap(long a, long aLen, long b, long bLen) {
        return a < b + bLen && b < a + aLen;
    }

    /** The source address to use: {@code src} itself, or a copy of it in the scratch if it overlaps the destination. */
    private long source(String what, long src, long srcLen, long dst, long dstLen) {
        if (!overlap(src, srcLen, dst, dstLen)) return src;
        if (srcLen > c.scratch.dataBytes())
            throw new IllegalArgumentException(what + " in place needs its " + srcLen
                    + "-byte source copied to the symmetric scratch, which holds " + c.scratch.dataBytes()
                    + " bytes: use distinct buffers or raise unicomm.nvshmem.scratchBytes");
        NvOps.copyAsync(c.scratch.data(), src, srcLen, c.io.ctrl);
        return c.scratch.data();
    }

    private interface Body {
        void run();
    }

    /**
     * Runs a data collective between two team barriers on the internal stream: NVSHMEM's collectives
     * may read peers' sources as soon as they start and do not wait for the peers to have written
     * them (seen with 4 PEs: a broadcast read the root's old data), nor keep a peer from reusing its
     * buffers while others still read them. The barriers give the blocking semantics the API promises.
     */
    private void run(String what, NvshmemTeam t, Body body) {
        c.lock.lock();
        try {
            c.ensureOpen();
            c.teamBarrier(t.handle, c.io.ctrl);
            body.run();
            c.teamBarrier(t.handle, c.io.ctrl);
            c.await(c.io.ctrl, what);
        } finally {
            c.lock.unlock();
        }
    }

    /** A one-PE team: every collective is a local copy. */
    private boolean self(NvshmemTeam t, long dst, long src, long bytes) {
        if (t.handle != NvshmemTeam.SELF) return false;
        c.lock.lock();
        try {
            c.ensureOpen();
            if (bytes > 0 && dst != src) NvOps.copyAsync(dst, src, bytes, c.io.ctrl);
            c.await(c.io.ctrl, "collective on a one-PE team");
        } finally {
            c.lock.unlock();
        }
        return true;
    }

    @Override
    public void broadcast(Team team, SymmetricBuffer dst, SymmetricBuffer src, long count, DType dtype, int root) {
        long bytes = count * dtype.byteSize();
        NvshmemTeam t = team(team);
        long d = buf(dst, "broadcast dst").address(),
                s = buf(src, "broadcast src").address();
        if (self(t, d, s, bytes)) return;
        run("broadcast", t, () -> {
            if (bytes == 0) {
                c.teamBarrier(t.handle, c.io.ctrl);
                return;
            }
            long from = source("broadcast", s, bytes, d, bytes);
            NvOps.broadcast(t.handle, d, from, bytes, root, c.io.ctrl);
            // OpenSHMEM 1.4 left the root's destination untouched; make it hold the data on every version.
            if (t.rank() == root && from != d) NvOps.copyAsync(d, from, bytes, c.io.ctrl);
        });
    }

    @Override
    public void allgather(Team team, SymmetricBuffer dst, SymmetricBuffer src, long countPerPe, DType dtype) {
        long bytesPerPe = countPerPe * dtype.byteSize();
        NvshmemTeam t = team(team);
        long d = buf(dst, "allgather dst").address(),
                buffer = buf(src, "allgather src").address();
        // In place, this member's contribution is its own block of the buffer, not the buffer's start.
        long s = d == buffer ? buffer + t.rank() * bytesPerPe : buffer;
        if (self(t, d, s, bytesPerPe)) return;
        long total = bytesPerPe * t.size();
        run("allgather", t, () -> {
            if (bytesPerPe == 0) {
                c.teamBarrier(t.handle, c.io.ctrl);
                return;
            }
            NvOps.fcollect(t.handle, d, source("allgather", s, bytesPerPe, d, total), bytesPerPe, c.io.ctrl);
        });
    }

    @Override
    public void allreduce(Team team, SymmetricBuffer dst, SymmetricBuffer src, long count, DType dtype, ReduceOp op) {
        NvshmemTeam t = team(team);
        long d = buf(dst, "allreduce dst").address(),
                s = buf(src, "allreduce src").address();
        int dt = dtype(dtype), o = op(op), es = dtype.byteSize();
        if (self(t, d, s, count * es)) return;
        run("allreduce", t, () -> {
            if (count == 0) {
                c.teamBarrier(t.handle, c.io.ctrl);
                return;
            }
            if (!overlap(s, count * es, d, count * es)) {
                NvOps.reduce(t.handle, dt, o, false, d, s, count, c.io.ctrl);
                return;
            }
            // In place: element-wise, so chunk through the scratch.
            long chunk = c.scratch.dataBytes() / es;
            for (long done = 0; done < count; done += chunk) {
                long n = Math.min(chunk, count - done);
                NvOps.copyAsync(c.scratch.data(), s + done * es, n * es, c.io.ctrl);
                NvOps.reduce(t.handle, dt, o, false, d + done * es, c.scratch.data(), n, c.io.ctrl);
            }
        });
    }

    @Override
    public void reduceScatter(
            Team team, SymmetricBuffer dst, SymmetricBuffer src, long countPerPe, DType dtype, ReduceOp op) {
        NvshmemTeam t = team(team);
        long d = buf(dst, "reduceScatter dst").address(),
                s = buf(src, "reduceScatter src").address();
        int dt = dtype(dtype), o = op(op), es = dtype.byteSize();
        if (self(t, d, s, countPerPe * es)) return;
        run("reduceScatter", t, () -> {
            if (countPerPe == 0) {
                c.teamBarrier(t.handle, c.io.ctrl);
                return;
            }
            // In place, this member's block of the result belongs at its own block of the buffer.
            long to = d == s ? d + t.rank() * countPerPe * es : d;
            long from = source("reduceScatter", s, countPerPe * es * t.size(), to, countPerPe * es);
            NvOps.reduce(t.handle, dt, o, true, to, from, countPerPe, c.io.ctrl);
        });
    }

    @Override
    public void alltoall(Team team, SymmetricBuffer dst, SymmetricBuffer src, long countPerPe, DType dtype) {
        long bytesPerPe = countPerPe * dtype.byteSize();
        NvshmemTeam t = team(team);
        long d = buf(dst, "alltoall dst").address(),
                s = buf(src, "alltoall src").address();
        if (self(t, d, s, bytesPerPe)) return;
        long total = bytesPerPe * t.size();
        run("alltoall", t, () -> {
            if (bytesPerPe == 0) {
                c.teamBarrier(t.handle, c.io.ctrl);
                return;
            }
            NvOps.alltoall(t.handle, d, source("alltoall", s, total, d, total), bytesPerPe, c.io.ctrl);
        });
    }

    /**
     * NVSHMEM has no alltoallv: members first exchange where each wants its block (an alltoall of
     * the receive offsets), then put their blocks there, then a team barrier completes the puts.
     */
    @Override
    public void alltoallv(
            Team team,
            SymmetricBuffer dst,
            long[] recvCountsIn,
            long[] recvOffsetsIn,
            SymmetricBuffer src,
            long[] sendCountsIn,
            long[] sendOffsetsIn,
            DType dtype) {
        // NVSHMEM moves bytes; counts and offsets arrive in elements of dtype.
        long[] recvCounts = inBytes(recvCountsIn, dtype), recvOffsets = inBytes(recvOffsetsIn, dtype);
        long[] sendCounts = inBytes(sendCountsIn, dtype), sendOffsets = inBytes(sendOffsetsIn, dtype);
        NvshmemTeam t = team(team);
        long d = buf(dst, "alltoallv dst").address(),
                s = buf(src, "alltoallv src").address();
        if (self(t, d + recvOffsets[0], s + sendOffsets[0], sendCounts[0])) return;
        int n = t.size();
        var pin = c.io.pinnedSeg;
        var sc = c.scratch;
        c.lock.lock();
        try {
            c.ensureOpen();
            // Each member tells each peer where, and how much, it expects from it: {offset, count} per peer.
            for (int j = 0; j < n; j++) {
                pin.set(ValueLayout.JAVA_LONG, 128 + 16L * j, recvOffsets[j]);
                pin.set(ValueLayout.JAVA_LONG, 136 + 16L * j, recvCounts[j]);
            }
            c.teamBarrier(t.handle, c.io.ctrl); // peers may still be reading the offsets area from a previous alltoallv
            NvOps.copyAsync(sc.offsetsSend(), c.io.pinned + 128, 16L * n, c.io.ctrl);
            c.teamBarrier(t.handle, c.io.ctrl);
            NvOps.alltoall(t.handle, sc.offsetsRecv(), sc.offsetsSend(), 16, c.io.ctrl);
            NvOps.copyAsync(c.io.pinned + 128, sc.offsetsRecv(), 16L * n, c.io.ctrl);
            c.await(c.io.ctrl, "alltoallv: exchanging receive offsets and counts");
            // Read them out before the agreement below reuses the pinned area.
            long[] remoteOffsets = new long[n], remoteCounts = new long[n];
            for (int j = 0; j < n; j++) {
                remoteOffsets[j] = pin.get(ValueLayout.JAVA_LONG, 128 + 16L * j);
                remoteCounts[j] = pin.get(ValueLayout.JAVA_LONG, 136 + 16L * j);
            }
            agreeOnPairs(t, sendCounts, remoteCounts);
            for (int j = 0; j < n; j++) {
                if (sendCounts[j] == 0) continue;
                long remote = remoteOffsets[j];
                NvOps.put(d + remote, s + sendOffsets[j], sendCounts[j], t.worldRank(j), true, c.io.ctrl);
            }
            NvOps.quiet(c.io.ctrl);
            c.teamBarrier(t.handle, c.io.ctrl);
            c.await(c.io.ctrl, "alltoallv");
        } finally {
            c.lock.unlock();
        }
    }

    /**
     * Counts are pair-wise, so each member checks what it sends against what each peer expects, then
     * all share their verdicts through the call agreement: a pair that disagrees fails every member,
     * before any data moves.
     */
    private void agreeOnPairs(NvshmemTeam t, long[] sendCounts, long[] expectedByPeer) {
        int bad = -1;
        long expected = 0;
        for (int j = 0; j < t.size() && bad < 0; j++) {
            expected = expectedByPeer[j];
            if (expected != sendCounts[j]) bad = j;
        }
        long[][] all =
                c.agreement.exchange(t, new long[] {bad < 0 ? 0 : 1, bad, bad < 0 ? 0 : sendCounts[bad], expected});
        for (int p = 0; p < all.length; p++) {
            if (all[p][0] == 0) continue;
            throw new IllegalArgumentException("alltoallv counts disagree: team rank " + p + " sends " + all[p][2]
                    + " bytes to team rank " + all[p][1] + ", which expects " + all[p][3]
                    + "; every member's recvCounts[i] must equal member i's sendCounts for it");
        }
    }

    static int dtype(DType t) {
        return switch (t) {
            case INT32 -> NvOps.DT_INT32;
            case INT64 -> NvOps.DT_INT64;
            case FP32 -> NvOps.DT_FP32;
            case FP16 -> NvOps.DT_FP16;
            case BF16 -> NvOps.DT_BF16;
            default ->
                throw new IllegalArgumentException(
                        "NVSHMEM reductions support INT32, INT64, FP32, FP16, BF16, not " + t);
        };
    }

    static int op(ReduceOp op) {
        return switch (op) {
            case SUM -> NvOps.OP_SUM;
            case MIN -> NvOps.OP_MIN;
            case MAX -> NvOps.OP_MAX;
            case PROD -> NvOps.OP_PROD;
        };
    }

    private static long[] inBytes(long[] elements, DType dtype) {
        long[] b = new long[elements.length];
        for (int i = 0; i < b.length; i++) b[i] = elements[i] * dtype.byteSize();
        return b;
    }
}
