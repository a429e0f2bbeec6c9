package dev.unicomm.collectives;

import dev.unicomm.api.DType;
import dev.unicomm.api.ReduceOp;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * What one rank says about a collective call, sent to every other member in the call's first
 * message so that every member can check that all agree (and all throw if they do not).
 * Words 0-3 must be equal on every member; words 4-7 are pair-specific (alltoallv's counts
 * and offsets towards the receiver).
 *
 * @param kind      which collective
 * @param algorithm the algorithm this rank picked (ranks with different settings could differ)
 * @param dtype     element type, or null
 * @param op        reduction, or null
 * @param count     elements or bytes, as the collective counts them
 * @param root      root team rank, or -1
 * @param team      fingerprint of the team's member list
 * @param pair      4 pair-specific words
 */
record Descriptor(
        Kind kind, Algorithm algorithm, DType dtype, ReduceOp op, long count, long root, long team, long[] pair) {
    /** Encoded size in bytes. */
    static final int BYTES = 64;

    private static final long MAGIC = 0x55434fL; // "UCO": catches reading a slot nobody wrote

    /** The collectives, as named in messages. */
    enum Kind {
        BARRIER,
        BROADCAST,
        ALLGATHER,
        ALLREDUCE,
        REDUCE_SCATTER,
        ALLTOALL,
        ALLTOALLV,
        VERDICT
    }

    /** How the data moves once everybody agreed. */
    enum Algorithm {
        /** Data rides in the first message, through the peers' scratch slots (one round). */
        INLINE,
        /** Peers load/store each other's buffers directly, with flag rounds around it. */
        DIRECT,
        /** RMA puts into the peers' buffers, reductions staged through scratch slots in segments. */
        RMA,
        /** Two levels on several equal hosts: allgather across hosts then inside; allreduce/reduce-scatter as a chain over the hosts. */
        TWO_LEVEL
    }

    static Descriptor of(Kind kind, Algorithm algo, DType dtype, ReduceOp op, long count, long root, long team) {
        return new Descriptor(kind, algo, dtype, op, count, root, team, new long[4]);
    }

    /** Writes the descriptor at {@code seg[0..64)}. */
    void write(MemorySegment seg, long[] pairWords) {
        long w0 = MAGIC << 40
                | (long) kind.ordinal() << 24
                | (long) algorithm.ordinal() << 16
                | (long) (dtype == null ? 0 : dtype.ordinal() + 1) << 8
                | (op == null ? 0 : op.ordinal() + 1);
        seg.set(ValueLayout.JAVA_LONG, 0, w0);
        seg.set(ValueLayout.JAVA_LONG, 8, count);
        seg.set(ValueLayout.JAVA_LONG, 16, root);
        seg.set(ValueLayout.JAVA_LONG, 24, team);
        long[] p = pairWords == null ? pair : pairWords;
        for (int i = 0; i < 4; i++) seg.set(ValueLayout.JAVA_LONG, 32 + 8L * i, p[i]);
    }

    // values() clones its array on every call; a descriptor is read on every collective call.
    private static final Kind[] KINDS = Kind.values();
    private static final Algorithm[] ALGORITHMS = Algorithm.values();
    private static final DType[] DTYPES = DType.values();
    private static final ReduceOp[] OPS = ReduceOp.values();

    /** Reads a descriptor written by {@link #write}; a garbled one comes back as an error. */
    static Descriptor read(MemorySegment seg) {
        long w0 = seg.get(ValueLayout.JAVA_LONG, 0);
        if (w0 >>> 40 != MAGIC)
            throw new IllegalStateException(
                    "collectives scratch slot holds no descriptor (word 0x" + Long.toHexString(w0) + ")");
        int k = (int) (w0 >>> 24) & 0xff,
                a = (int) (w0 >>> 16) & 0xff,
                d = (int) (w0 >>> 8) & 0xff,
                o = (int) w0 & 0xff;
        long[] pair = new long[4];
        for (int i = 0; i < 4; i++) pair[i] = seg.get(ValueLayout.JAVA_LONG, 32 + 8L * i);
        return new Descriptor(
                KINDS[k],
                ALGORITHMS[a],
                d == 0 ? null : DTYPES[d - 1],
                o == 0 ? null : OPS[o - 1],
                seg.get(ValueLayout.JAVA_LONG, 8),
                seg.get(ValueLayout.JAVA_LONG, 16),
                seg.get(ValueLayout.JAVA_LONG, 24),
                pair);
    }

    /** Whether the words every member must share are equal. */
    boolean agreesWith(Descriptor o) {
        // DIRECT vs RMA may differ (peer reachability is per rank): the call then runs RMA everywhere.
        return kind == o.kind
                && (algorithm == Algorithm.INLINE) == (o.algorithm == Algorithm.INLINE)
                && dtype == o.dtype
                && op == o.op
                && count == o.count
                && root == o.root
                && team == o.team;
    }

    /** Fingerprint of a team: its size and its members' world ranks, in order. */
    static long teamFingerprint(int[] worldRanks) {
        return (long) worldRanks.length << 48 ^ Arrays.hashCode(worldRanks);
    }

    /** Human-readable, for the mismatch message. */
    String describe() {
        StringBuilder sb = new StringBuilder(kind.name().toLowerCase());
        if (kind != Kind.BARRIER) sb.append(" count=").append(count);
        if (dtype != null) sb.append(" dtype=").append(dtype);
        if (op != null) sb.append(" op=").append(op);
        if (root >= 0) sb.append(" root=").append(root);
        sb.append(" algorithm=").append(algorithm).append(" team=").append(Long.toHexString(team));
        return sb.toString();
    }
}
