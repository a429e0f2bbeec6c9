package dev.unicomm.conformance.collectives;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.unicomm.api.Collectives;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.Memory;
import dev.unicomm.api.ReduceOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Team;
import dev.unicomm.conformance.KitSuite;
import dev.unicomm.conformance.Mem;
import dev.unicomm.conformance.Pe;
import dev.unicomm.conformance.Verifies;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/**
 * Collectives: every collective, element type and reduction, on the world and on sub-teams (size 1,
 * size 3 where the job has 3+ ranks, a strided pair where it has 4+), odd sizes from 0 elements to
 * past the small-message limits, in place and out of place; results against
 * {@link CollectiveReference}. Bad input: calls that disagree across ranks fail on every rank with
 * {@link IllegalArgumentException}; wrong sizes, unsupported types and in-place alltoall fail locally.
 */
public abstract class CollectivesSuite extends KitSuite {
    /** Element counts of the reductions: empty, odd, and large enough (> 16 KiB even for 16-bit types) to leave small-message paths. */
    static final int[] COUNTS = {0, 7, 9_001};
    /**
     * Byte counts of the collectives that move bytes (broadcast, allgather and alltoall per PE): empty, odd, and past
     * 16 KiB, so that they too leave the small-message paths (the portable collectives' inline limit) and, on several
     * hosts, run the two-level allgather.
     */
    static final int[] BYTE_COUNTS = {0, 7, 20_003};
    /** Per-PE bytes of the two buffers every rule uses. */
    static final long BUF = 1L << 20;

    // ---------------------------------------------------------------- rules

    /** Verifies §8.3: the collectives' barrier separates phases / if it fails, look at Collectives.barrier. */
    @Verifies("8.3")
    @Test
    void required_collectives_barrier_separates_phases() {
        spmd(CollectivesSuite::barrierPhases);
    }

    /** Verifies §8.1: the collective matches the reference for every size and type / if it fails, look at the algorithm for that collective and element type. */
    @Verifies("8.1")
    @Test
    void required_collectives_broadcast() {
        spmd(CollectivesSuite::broadcasts);
    }

    /** Verifies §8.1: the collective matches the reference for every size and type / if it fails, look at the algorithm for that collective and element type. */
    @Verifies("8.1")
    @Test
    void required_collectives_allgather() {
        spmd(CollectivesSuite::allgathers);
    }

    /** Verifies §8.1: the collective matches the reference for every size and type / if it fails, look at the algorithm for that collective and element type. */
    @Verifies("8.1")
    @Test
    void required_collectives_allreduce_int32() {
        spmd(pe -> allreduces(pe, DType.INT32));
    }

    /** Verifies §8.1: the collective matches the reference for every size and type / if it fails, look at the algorithm for that collective and element type. */
    @Verifies("8.1")
    @Test
    void required_collectives_allreduce_int64() {
        spmd(pe -> allreduces(pe, DType.INT64));
    }

    /** Verifies §8.1: the collective matches the reference for every size and type / if it fails, look at the algorithm for that collective and element type. */
    @Verifies("8.1")
    @Test
    void required_collectives_allreduce_fp32() {
        spmd(pe -> allreduces(pe, DType.FP32));
    }

    /** Verifies §8.1: the collective matches the reference for every size and type / if it fails, look at the algorithm for that collective and element type. */
    @Verifies("8.1")
    @Test
    void required_collectives_allreduce_fp16() {
        spmd(pe -> allreduces(pe, DType.FP16));
    }

    /** Verifies §8.1: the collective matches the reference for every size and type / if it fails, look at the algorithm for that collective and element type. */
    @Verifies("8.1")
    @Test
    void required_collectives_allreduce_bf16() {
        spmd(pe -> allreduces(pe, DType.BF16));
    }

    /** Verifies §8.1: the collective matches the reference for every size and type / if it fails, look at the algorithm for that collective and element type. */
    @Verifies("8.1")
    @Test
    void required_collectives_reduce_scatter() {
        spmd(CollectivesSuite::reduceScatters);
    }

    /** Verifies §8.1: the collective matches the reference for every size and type / if it fails, look at the algorithm for that collective and element type. */
    @Verifies("8.1")
    @Test
    void required_collectives_alltoall() {
        spmd(CollectivesSuite::alltoalls);
    }

    /** Verifies §8.1: the collective matches the reference for every size and type / if it fails, look at the algorithm for that collective and element type. */
    @Verifies("8.1")
    @Test
    void required_collectives_alltoallv() {
        spmd(CollectivesSuite::alltoallvs);
    }

    /** Verifies §8.1: every count is in elements of the call's dtype, for data movement too / if it fails, look at where a count is taken as bytes. */
    @Verifies("8.1")
    @Test
    void required_collectives_counts_are_elements_of_the_dtype() {
        spmd(CollectivesSuite::elementCounts);
    }

    /** Verifies §8.4: collectives on sub-teams involve only their members / if it fails, look at team-relative ranks in the collective algorithms. */
    @Verifies("8.4")
    @Test
    void required_collectives_sub_teams() {
        spmd(CollectivesSuite::subTeams);
    }

    /** Verifies §8.1: floating-point allreduce gives bit-identical results on every rank / if it fails, look at reduction order that differs between ranks. */
    @Verifies("8.1")
    @Test
    void required_collectives_allreduce_same_bits_on_every_rank() {
        var results = spmd(CollectivesSuite::sameBits);
        assertSameOnAllRanks("hash of the FP32/BF16 allreduce results", results);
    }

    /** Verifies §8.2: arguments that disagree across ranks fail on every rank / if it fails, look at the cross-rank argument check. */
    @Verifies("8.2")
    @Test
    void required_collectives_bad_input_mismatch_across_ranks() {
        spmd(CollectivesSuite::mismatches);
    }

    /** Verifies §8.2: wrong sizes and types fail locally with IllegalArgumentException / if it fails, look at the local argument checks. */
    @Verifies("8.2")
    @Test
    void required_collectives_bad_input_local_checks() {
        spmd(CollectivesSuite::localChecks);
    }

    // ---------------------------------------------------------------- bodies (run on every rank)

    /** The world plus sub-teams: {0}, {0,1,2} (3+ ranks), {1,3} (4+ ranks). Splits are collective. */
    static List<Team> teams(Communicator c) {
        List<Team> t = new ArrayList<>();
        t.add(c.world());
        return t;
    }

    /** Sub-teams (collective over the world): {0}, {0,1,2} with 3+ ranks, {1,3} with 4+ ranks. */
    static List<Team> subTeamList(Communicator c) {
        List<Team> t = new ArrayList<>();
        t.add(c.world().split(0, 1, 1));
        if (c.size() >= 3) t.add(c.world().split(0, 1, 3));
        if (c.size() >= 4) t.add(c.world().split(1, 2, 2));
        return t;
    }

    /** One team's share of a rule: {@code seed} is the same on every member of {@code t}, whatever other teams did. */
    interface TeamBody {
        void run(Communicator c, Collectives coll, Team t, long seed, SymmetricBuffer a, SymmetricBuffer b);
    }

    /** Runs {@code body} on every team of {@link #teams} this PE belongs to, with two {@link #BUF}-byte buffers; closes the teams. */
    static void forEachTeam(Pe pe, long seed, TeamBody body) {
        Communicator c = pe.comm();
        List<Team> teams = teams(c);
        try (SymmetricBuffer a = c.heap().allocate(BUF);
                SymmetricBuffer b = c.heap().allocate(BUF)) {
            for (int ti = 0; ti < teams.size(); ti++) {
                Team t = teams.get(ti);
                if (t.rank() >= 0) body.run(c, c.collectives(), t, seed + ti * 1_000_000L, a, b);
            }
        } finally {
            closeTeams(c, teams);
        }
    }

    static void closeTeams(Communicator c, List<Team> teams) {
        for (Team t : teams) if (t != c.world()) t.close();
    }

    static void barrierPhases(Pe pe) {
        Communicator c = pe.comm();
        Collectives coll = c.collectives();
        int n = c.size();
        try (SymmetricBuffer b = c.heap().allocate(8L * n)) {
            for (long round = 1; round <= 20; round++) {
                for (int p = 0; p < n; p++) c.rma().put(b, 8L * c.rank(), Memory.of(Mem.longs(round)), 0, 8, p);
                c.rma().quiet();
                c.world().barrier();
                for (int r = 0; r < n; r++) {
                    long v = Mem.readLong(c, b, 8L * r);
                    if (v != round)
                        throw new AssertionFailedError(
                                "after collectives barrier " + round + " rank " + r + "'s slot shows " + v);
                }
                c.world().barrier();
            }
        }
    }

    static void broadcasts(Pe pe) {
        forEachTeam(pe, 1, (c, coll, t, base, a, b) -> {
            long seed = base;
            for (int count : BYTE_COUNTS) {
                for (int root = 0; root < t.size(); root++) {
                    for (boolean inPlace : new boolean[] {false, true}) {
                        SymmetricBuffer dst = inPlace ? a : b;
                        byte[] data = CollectiveReference.bytes(seed, root, count);
                        write(c, a, 0, t.rank() == root ? data : CollectiveReference.bytes(seed + 1, t.rank(), count));
                        coll.broadcast(t, dst, a, count, DType.UINT8, root);
                        expect(
                                data,
                                read(c, dst, 0, count),
                                "broadcast of " + count + " B from root " + root + where(t, inPlace));
                        seed++;
                    }
                }
            }
        });
    }

    static void allgathers(Pe pe) {
        forEachTeam(pe, 100, (c, coll, t, base, a, b) -> {
            long seed = base;
            int n = t.size();
            for (int count : BYTE_COUNTS) {
                int per = Math.min(count, (int) (BUF / n));
                for (boolean inPlace : new boolean[] {false, true}) {
                    SymmetricBuffer dst = inPlace ? a : b;
                    byte[] want = new byte[n * per];
                    for (int p = 0; p < n; p++)
                        System.arraycopy(CollectiveReference.bytes(seed, p, per), 0, want, p * per, per);
                    // In place, this member's contribution sits at its own block of the buffer.
                    write(c, a, inPlace ? (long) t.rank() * per : 0, CollectiveReference.bytes(seed, t.rank(), per));
                    coll.allgather(t, dst, a, per, DType.UINT8);
                    expect(want, read(c, dst, 0, want.length), "allgather of " + per + " B per PE" + where(t, inPlace));
                    seed++;
                }
            }
        });
    }

    static void allreduces(Pe pe, DType dt) {
        forEachTeam(pe, 1000, (c, coll, t, base, a, b) -> {
            long seed = base;
            for (ReduceOp op : ReduceOp.values()) {
                for (int count : COUNTS) {
                    for (boolean inPlace : new boolean[] {false, true}) {
                        SymmetricBuffer dst = inPlace ? a : b;
                        byte[][] in = new byte[t.size()][];
                        for (int p = 0; p < t.size(); p++) in[p] = CollectiveReference.data(dt, seed, p, count);
                        write(c, a, 0, in[t.rank()]);
                        coll.allreduce(t, dst, a, count, dt, op);
                        byte[] want = CollectiveReference.reduce(dt, op, in, count);
                        CollectiveReference.check(
                                dt,
                                op,
                                in,
                                want,
                                read(c, dst, 0, want.length),
                                count,
                                "allreduce " + dt + " " + op + " of " + count + " elements" + where(t, inPlace));
                        seed++;
                    }
                }
            }
        });
    }

    static void reduceScatters(Pe pe) {
        forEachTeam(pe, 5000, (c, coll, t, base, a, b) -> {
            long seed = base;
            int n = t.size(), me = t.rank();
            for (DType dt : CollectiveReference.REDUCIBLE) {
                int es = dt.byteSize();
                for (ReduceOp op : ReduceOp.values()) {
                    for (int count : new int[] {13, 9_001}) {
                        // Both modes for every type, without running every combination twice.
                        for (boolean inPlace : new boolean[] {(op.ordinal() + count) % 2 == 0}) {
                            SymmetricBuffer dst = inPlace ? a : b;
                            byte[][] in = new byte[n][];
                            for (int p = 0; p < n; p++) in[p] = CollectiveReference.data(dt, seed, p, count * n);
                            write(c, a, 0, in[me]);
                            coll.reduceScatter(t, dst, a, count, dt, op);
                            byte[] all = CollectiveReference.reduce(dt, op, in, count * n);
                            byte[] want = Arrays.copyOfRange(all, me * count * es, (me + 1) * count * es);
                            byte[][] mine = new byte[n][];
                            for (int p = 0; p < n; p++)
                                mine[p] = Arrays.copyOfRange(in[p], me * count * es, (me + 1) * count * es);
                            // In place, this member's block of the result lands at its own block of the buffer.
                            long at = inPlace ? (long) me * count * es : 0;
                            CollectiveReference.check(
                                    dt,
                                    op,
                                    mine,
                                    want,
                                    read(c, dst, at, want.length),
                                    count,
                                    "reduceScatter " + dt + " " + op + " of " + count + " elements per PE"
                                            + where(t, inPlace));
                            seed++;
                        }
                    }
                }
            }
        });
    }

    static void alltoalls(Pe pe) {
        forEachTeam(pe, 9000, (c, coll, t, base, a, b) -> {
            long seed = base;
            int n = t.size(), me = t.rank();
            for (int count : BYTE_COUNTS) {
                int per = Math.min(count, (int) (BUF / n));
                write(c, a, 0, CollectiveReference.bytes(seed, me, n * per));
                coll.alltoall(t, b, a, per, DType.UINT8);
                byte[] got = read(c, b, 0, n * per);
                for (int p = 0; p < n; p++) {
                    byte[] theirs = CollectiveReference.bytes(seed, p, n * per);
                    expect(
                            Arrays.copyOfRange(theirs, me * per, (me + 1) * per),
                            Arrays.copyOfRange(got, p * per, (p + 1) * per),
                            "alltoall of " + per + " B per pair, block from team rank " + p + where(t, false));
                }
                seed++;
            }
        });
    }

    /** Bytes team rank i sends to team rank j in alltoallv round {@code k}: uneven, sometimes 0. */
    static int vCount(int i, int j, int k) {
        return (i * 7 + j * 3 + k * 5) % 11 * (k % 2 == 0 ? 1 : 2_000);
    }

    static void alltoallvs(Pe pe) {
        forEachTeam(pe, 12000, (c, coll, t, base, a, b) -> {
            long seed = base;
            int n = t.size(), me = t.rank();
            for (int k = 0; k < 4; k++) {
                long[] sc = new long[n], so = new long[n], rc = new long[n], ro = new long[n];
                long s = 5, r = 3;
                for (int j = 0; j < n; j++) {
                    sc[j] = vCount(me, j, k);
                    so[j] = s;
                    s += sc[j] + 3; // gaps between blocks
                    rc[j] = vCount(j, me, k);
                    ro[j] = r;
                    r += rc[j] + 1;
                }
                byte[] mine = CollectiveReference.bytes(seed, me, (int) s);
                write(c, a, 0, mine);
                coll.alltoallv(t, b, rc, ro, a, sc, so, DType.UINT8);
                for (int j = 0; j < n; j++) {
                    long off = 5;
                    for (int x = 0; x < me; x++) off += vCount(j, x, k) + 3;
                    byte[] theirs = CollectiveReference.bytes(seed, j, (int) (off + rc[j]));
                    expect(
                            Arrays.copyOfRange(theirs, (int) off, (int) (off + rc[j])),
                            read(c, b, ro[j], (int) rc[j]),
                            "alltoallv round " + k + ", block from team rank " + j + where(t, false));
                }
                seed++;
            }
        });
    }

    /** A few calls of every collective on each sub-team; PEs outside a team skip it. */
    static void subTeams(Pe pe) {
        Communicator c = pe.comm();
        Collectives coll = c.collectives();
        List<Team> teams = subTeamList(c);
        try (SymmetricBuffer a = c.heap().allocate(BUF);
                SymmetricBuffer b = c.heap().allocate(BUF)) {
            for (int ti = 0; ti < teams.size(); ti++) {
                Team t = teams.get(ti);
                if (t.rank() < 0) continue;
                int n = t.size(), me = t.rank();
                long seed = 70_000 + ti * 100L;
                for (int count : new int[] {5, 9_001}) {
                    for (DType dt : new DType[] {DType.FP32, DType.BF16, DType.INT64}) {
                        ReduceOp op = dt == DType.BF16 ? ReduceOp.MAX : ReduceOp.SUM;
                        byte[][] in = new byte[n][];
                        for (int p = 0; p < n; p++) in[p] = CollectiveReference.data(dt, seed, p, count);
                        write(c, a, 0, in[me]);
                        SymmetricBuffer dst = dt == DType.BF16 ? a : b;
                        coll.allreduce(t, dst, a, count, dt, op);
                        byte[] want = CollectiveReference.reduce(dt, op, in, count);
                        CollectiveReference.check(
                                dt,
                                op,
                                in,
                                want,
                                read(c, dst, 0, want.length),
                                count,
                                "allreduce " + dt + " " + op + " of " + count + where(t, dst == a));
                        seed++;
                    }
                    int bytes = count * 3;
                    byte[] gathered = new byte[n * bytes];
                    for (int p = 0; p < n; p++)
                        System.arraycopy(CollectiveReference.bytes(seed, p, bytes), 0, gathered, p * bytes, bytes);
                    write(c, a, 0, CollectiveReference.bytes(seed, me, bytes));
                    coll.allgather(t, b, a, bytes, DType.UINT8);
                    expect(gathered, read(c, b, 0, gathered.length), "allgather of " + bytes + " B" + where(t, false));
                    byte[] data = CollectiveReference.bytes(seed + 1, n - 1, bytes);
                    if (me == n - 1) write(c, a, 0, data);
                    coll.broadcast(t, a, a, bytes, DType.UINT8, n - 1);
                    expect(data, read(c, a, 0, bytes), "broadcast from the last team rank" + where(t, true));
                    write(c, a, 0, CollectiveReference.bytes(seed + 2, me, n * bytes));
                    coll.alltoall(t, b, a, bytes, DType.UINT8);
                    for (int p = 0; p < n; p++)
                        expect(
                                Arrays.copyOfRange(
                                        CollectiveReference.bytes(seed + 2, p, n * bytes),
                                        me * bytes,
                                        (me + 1) * bytes),
                                read(c, b, (long) p * bytes, bytes),
                                "alltoall block from team rank " + p + where(t, false));
                    t.barrier();
                }
            }
        } finally {
            closeTeams(c, teams);
        }
    }

    /** Broadcast, allgather, alltoall and alltoallv of INT64/INT32 elements move count x element-size bytes, no more, no fewer. */
    static void elementCounts(Pe pe) {
        Communicator c = pe.comm();
        Collectives coll = c.collectives();
        Team w = c.world();
        int n = c.size(), me = c.rank();
        try (SymmetricBuffer a = c.heap().allocate(BUF);
                SymmetricBuffer b = c.heap().allocate(BUF)) {
            byte[] fill = new byte[4096];
            Arrays.fill(fill, (byte) 0x5A);
            byte[] data = CollectiveReference.bytes(41, 0, 3 * 8);
            write(c, a, 0, me == 0 ? data : CollectiveReference.bytes(42, me, 3 * 8));
            write(c, b, 0, fill);
            coll.broadcast(w, b, a, 3, DType.INT64, 0);
            expect(data, read(c, b, 0, 24), "broadcast of 3 INT64 elements");
            expect(
                    Arrays.copyOf(fill, 8),
                    read(c, b, 24, 8),
                    "the byte after 3 INT64 elements of a broadcast (must be untouched)");

            write(c, a, 0, CollectiveReference.bytes(43, me, 2 * 4));
            write(c, b, 0, fill);
            coll.allgather(w, b, a, 2, DType.INT32);
            for (int p = 0; p < n; p++)
                expect(
                        CollectiveReference.bytes(43, p, 8),
                        read(c, b, 8L * p, 8),
                        "allgather block of 2 INT32 from rank " + p);
            expect(
                    Arrays.copyOf(fill, 8),
                    read(c, b, 8L * n, 8),
                    "the bytes after an allgather of 2 INT32 per PE (must be untouched)");

            write(c, a, 0, CollectiveReference.bytes(44, me, n * 8));
            coll.alltoall(w, b, a, 1, DType.INT64);
            for (int p = 0; p < n; p++)
                expect(
                        Arrays.copyOfRange(CollectiveReference.bytes(44, p, n * 8), me * 8, me * 8 + 8),
                        read(c, b, 8L * p, 8),
                        "alltoall of 1 INT64 from rank " + p);

            long[] sc = new long[n], so = new long[n], rc = new long[n], ro = new long[n];
            for (int p = 0; p < n; p++) {
                sc[p] = 2;
                so[p] = 2L * p; // 2 INT32 elements to each peer, packed
                rc[p] = 2;
                ro[p] = 4L * p; // received with a gap of 2 elements between blocks
            }
            write(c, a, 0, CollectiveReference.bytes(45, me, n * 8));
            write(c, b, 0, fill);
            coll.alltoallv(w, b, rc, ro, a, sc, so, DType.INT32);
            for (int p = 0; p < n; p++) {
                expect(
                        Arrays.copyOfRange(CollectiveReference.bytes(45, p, n * 8), me * 8, me * 8 + 8),
                        read(c, b, 16L * p, 8),
                        "alltoallv of 2 INT32 from rank " + p + " at element offset " + ro[p]);
                expect(
                        Arrays.copyOf(fill, 8),
                        read(c, b, 16L * p + 8, 8),
                        "the gap after rank " + p + "'s alltoallv block (must be untouched)");
            }
        }
    }

    static void sameBits(Pe pe) {
        Communicator c = pe.comm();
        Collectives coll = c.collectives();
        try (SymmetricBuffer a = c.heap().allocate(BUF);
                SymmetricBuffer b = c.heap().allocate(BUF)) {
            long hash = 17;
            for (DType dt : new DType[] {DType.FP32, DType.BF16}) {
                for (int count : new int[] {33, 100_003}) {
                    write(c, a, 0, CollectiveReference.data(dt, 77, c.rank(), count));
                    coll.allreduce(c.world(), b, a, count, dt, ReduceOp.SUM);
                    hash = hash * 31 + Arrays.hashCode(read(c, b, 0, count * dt.byteSize()));
                }
            }
            pe.report(Long.toHexString(hash));
        }
    }

    static void mismatches(Pe pe) {
        Communicator c = pe.comm();
        Collectives coll = c.collectives();
        Team w = c.world();
        boolean odd = c.rank() == c.size() - 1;
        try (SymmetricBuffer a = c.heap().allocate(BUF);
                SymmetricBuffer b = c.heap().allocate(BUF)) {
            mismatch("count", () -> coll.allreduce(w, b, a, odd ? 99 : 100, DType.FP32, ReduceOp.SUM));
            mismatch("large count", () -> coll.allreduce(w, b, a, odd ? 60_000 : 60_001, DType.FP32, ReduceOp.SUM));
            mismatch("dtype", () -> coll.allreduce(w, b, a, 64, odd ? DType.BF16 : DType.FP16, ReduceOp.SUM));
            mismatch("op", () -> coll.allreduce(w, b, a, 64, DType.INT32, odd ? ReduceOp.MIN : ReduceOp.MAX));
            mismatch("root", () -> coll.broadcast(w, b, a, 64, DType.UINT8, odd ? 0 : c.size() - 1));
            mismatch("collective", () -> {
                if (odd) coll.allgather(w, b, a, 16, DType.UINT8);
                else coll.reduceScatter(w, b, a, 4, DType.INT32, ReduceOp.SUM);
            });
            long[] counts = new long[c.size()], offs = new long[c.size()];
            for (int j = 0; j < c.size(); j++) {
                counts[j] = 8;
                offs[j] = 16L * j;
            }
            long[] recv = counts.clone();
            if (odd) recv[0] = 7; // the last rank expects a byte less from rank 0 than rank 0 sends
            mismatch("alltoallv counts", () -> coll.alltoallv(w, b, recv, offs, a, counts, offs, DType.UINT8));
            // The communicator is still usable afterwards.
            write(c, a, 0, CollectiveReference.data(DType.INT64, 3, c.rank(), 10));
            coll.allreduce(w, b, a, 10, DType.INT64, ReduceOp.SUM);
            byte[][] in = new byte[c.size()][];
            for (int p = 0; p < c.size(); p++) in[p] = CollectiveReference.data(DType.INT64, 3, p, 10);
            expect(
                    CollectiveReference.reduce(DType.INT64, ReduceOp.SUM, in, 10),
                    read(c, b, 0, 80),
                    "allreduce after mismatches");
        }
    }

    private static void mismatch(String what, Runnable call) {
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class,
                call::run,
                "a call whose " + what + " differs across ranks must fail with IllegalArgumentException on every rank");
        if (e.getMessage() == null || e.getMessage().isBlank())
            throw new AssertionFailedError(what + " mismatch: exception without a message");
    }

    static void localChecks(Pe pe) {
        Communicator c = pe.comm();
        Collectives coll = c.collectives();
        Team w = c.world();
        try (SymmetricBuffer small = c.heap().allocate(64);
                SymmetricBuffer a = c.heap().allocate(4096);
                SymmetricBuffer b = c.heap().allocate(4096)) {
            assertThrows(
                    IllegalArgumentException.class,
                    () -> coll.allreduce(w, small, a, 100, DType.FP32, ReduceOp.SUM),
                    "dst too small");
            assertThrows(
                    IllegalArgumentException.class,
                    () -> coll.allreduce(w, a, small, 100, DType.FP32, ReduceOp.SUM),
                    "src too small");
            assertThrows(
                    IllegalArgumentException.class,
                    () -> coll.allreduce(w, b, a, 8, DType.FP8_E4M3, ReduceOp.SUM),
                    "FP8 is not reducible");
            assertThrows(
                    IllegalArgumentException.class,
                    () -> coll.allreduce(w, b, a, 8, DType.UINT8, ReduceOp.MAX),
                    "UINT8 is not reducible");
            assertThrows(
                    IllegalArgumentException.class,
                    () -> coll.allreduce(w, b, a, -1, DType.INT32, ReduceOp.SUM),
                    "negative count");
            assertThrows(
                    IllegalArgumentException.class,
                    () -> coll.allgather(w, small, a, 64, DType.UINT8),
                    "allgather dst must hold size x countPerPe elements");
            assertThrows(
                    IllegalArgumentException.class,
                    () -> coll.alltoall(w, a, a, 8, DType.UINT8),
                    "alltoall cannot run in place");
            assertThrows(
                    IndexOutOfBoundsException.class,
                    () -> coll.broadcast(w, b, a, 8, DType.UINT8, c.size()),
                    "root out of range");
            assertThrows(
                    IllegalArgumentException.class,
                    () -> coll.reduceScatter(w, b, a, 4096, DType.INT32, ReduceOp.SUM),
                    "src too small for reduceScatter");
            assertThrows(
                    IllegalArgumentException.class,
                    () -> coll.allreduce(null, b, a, 8, DType.INT32, ReduceOp.SUM),
                    "null team");
            // Still usable.
            w.barrier();
            assertEquals(4096, a.byteSize());
        }
    }

    // ---------------------------------------------------------------- helpers

    static void write(Communicator c, SymmetricBuffer b, long at, byte[] data) {
        if (data.length > 0) Mem.write(c, b, at, MemorySegment.ofArray(data));
    }

    static byte[] read(Communicator c, SymmetricBuffer b, long at, int len) {
        if (len == 0) return new byte[0];
        return Mem.read(c, b, at, len).toArray(ValueLayout.JAVA_BYTE);
    }

    static void expect(byte[] want, byte[] got, String what) {
        int at = Arrays.mismatch(want, got);
        if (at >= 0)
            throw new AssertionFailedError(
                    what + ": byte " + at + " of " + want.length + " is " + (at < got.length ? got[at] : "missing")
                            + ", expected " + (at < want.length ? want[at] : "nothing"));
    }

    static String where(Team t, boolean inPlace) {
        return " on a team of " + t.size() + " (team rank " + t.rank() + ")" + (inPlace ? ", in place" : "");
    }
}
