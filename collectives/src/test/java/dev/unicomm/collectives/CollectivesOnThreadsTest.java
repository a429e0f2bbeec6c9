package dev.unicomm.collectives;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.Collectives;
import dev.unicomm.api.DType;
import dev.unicomm.api.ReduceOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Team;
import dev.unicomm.testsupport.ThreadJob;
import dev.unicomm.testsupport.threads.ThreadWorld;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Every collective, dtype and reduction on thread-PEs (team sizes 1-5, with and without direct peer
 * access, in place and out of place), each result checked against {@link Reference}. Small slots
 * make every algorithm run on small data: inline (≤ 64 B), direct or RMA with many slot pieces.
 */
class CollectivesOnThreadsTest {
    private static final Map<String, String> SMALL_SLOTS =
            Map.of("unicomm.collectives.slot.bytes", "256", "unicomm.collectives.inline.bytes", "64");
    private static final DType[] TYPES = {DType.INT32, DType.INT64, DType.FP32, DType.FP16, DType.BF16};
    private static final int[] COUNTS = {0, 1, 5, 13, 300};

    @ParameterizedTest(name = "{0} PEs, direct={1}")
    @CsvSource({"1,true", "2,true", "3,true", "4,false", "5,true", "3,false", "2,false"})
    void everyCollectiveMatchesTheReference(int pes, boolean direct) {
        onThreads(pes, direct, comm -> {
            Collectives coll = comm.collectives();
            Team world = comm.world();
            try (SymmetricBuffer a = comm.heap().allocate(64 << 10);
                    SymmetricBuffer b = comm.heap().allocate(64 << 10)) {
                long seed = 1;
                for (int count : COUNTS) {
                    for (boolean inPlace : new boolean[] {false, true}) {
                        SymmetricBuffer dst = inPlace ? a : b;
                        for (DType dt : TYPES) {
                            for (ReduceOp op : ReduceOp.values()) {
                                allreduce(coll, world, a, dst, dt, op, count, seed++);
                                reduceScatter(coll, world, a, dst, dt, op, count, seed++);
                            }
                        }
                        allgather(coll, world, a, dst, count * 3, seed++);
                        for (int root = 0; root < world.size(); root++)
                            broadcast(coll, world, a, dst, count * 3 + 1, root, seed++);
                    }
                    alltoall(coll, world, a, b, count * 2 + 1, seed++);
                    alltoallv(coll, world, a, b, count, seed++);
                    comm.barrier();
                }
            }
        });
    }

    /** On a simulated topology of equal hosts the world's allgather runs in two levels; every result still matches. */
    @ParameterizedTest(name = "hosts {0}, direct={1}, two_level={2}")
    @CsvSource({"0 0 1 1,true,true", "0 0 0 1 1 1,false,true", "0 1 0 1,true,true", "0 0 1 1,false,false"})
    void everyCollectiveMatchesTheReferenceOnSeveralHosts(String hostsOfRanks, boolean direct, boolean twoLevel) {
        int[] hosts = java.util.Arrays.stream(hostsOfRanks.split(" "))
                .mapToInt(Integer::parseInt)
                .toArray();
        Map<String, String> props = new java.util.HashMap<>(SMALL_SLOTS);
        props.put("unicomm.collectives.two_level", Boolean.toString(twoLevel));
        try (ThreadWorld w = ThreadWorld.create(hosts.length, direct, 16 << 20)) {
            w.job().properties(props).hosts(hosts).runOk(comm -> {
                Collectives coll = comm.collectives();
                Team world = comm.world();
                try (SymmetricBuffer a = comm.heap().allocate(64 << 10);
                        SymmetricBuffer b = comm.heap().allocate(64 << 10)) {
                    long seed = 500;
                    for (int count : COUNTS) {
                        for (boolean inPlace : new boolean[] {false, true}) {
                            SymmetricBuffer dst = inPlace ? a : b;
                            allgather(coll, world, a, dst, count * 3, seed++);
                            allgather(coll, world, a, dst, count * 31 + 7, seed++);
                            allreduce(coll, world, a, dst, DType.FP32, ReduceOp.SUM, count, seed++);
                            reduceScatter(coll, world, a, dst, DType.BF16, ReduceOp.MAX, count, seed++);
                        }
                        alltoall(coll, world, a, b, count * 2 + 1, seed++);
                        comm.barrier();
                    }
                    Team half = world.split(0, 1, 2); // a sub-team keeps the flat algorithms
                    if (half.rank() >= 0) allgather(coll, half, a, b, 300, seed++);
                    comm.barrier();
                }
            });
        }
    }

    @ParameterizedTest(name = "direct={0}")
    @CsvSource({"true", "false"})
    void subTeamsOfOddSizeWork(boolean direct) {
        onThreads(5, direct, comm -> {
            Collectives coll = comm.collectives();
            Team odd = comm.world().split(1, 2, 2); // world ranks 1, 3
            Team three = comm.world().split(2, 1, 3); // world ranks 2, 3, 4
            try (SymmetricBuffer a = comm.heap().allocate(8192);
                    SymmetricBuffer b = comm.heap().allocate(8192)) {
                for (int i = 0; i < 3; i++) {
                    if (odd.rank() >= 0) allreduce(coll, odd, a, b, DType.FP32, ReduceOp.SUM, 301, 100 + i);
                    if (three.rank() >= 0) {
                        allreduce(coll, three, a, b, DType.BF16, ReduceOp.MAX, 77, 200 + i);
                        allgather(coll, three, a, b, 333, 300 + i);
                    }
                    comm.barrier();
                }
            }
        });
    }

    @ParameterizedTest(name = "direct={0}")
    @CsvSource({"true", "false"})
    void mismatchedCallsFailOnEveryRank(boolean direct) {
        onThreads(3, direct, comm -> {
            Collectives coll = comm.collectives();
            try (SymmetricBuffer a = comm.heap().allocate(4096);
                    SymmetricBuffer b = comm.heap().allocate(4096)) {
                expectMismatch(
                        () -> coll.allreduce(comm.world(), b, a, comm.rank() == 1 ? 9 : 10, DType.FP32, ReduceOp.SUM),
                        "count");
                expectMismatch(
                        () -> coll.allreduce(
                                comm.world(), b, a, 10, comm.rank() == 2 ? DType.INT32 : DType.FP32, ReduceOp.SUM),
                        "dtype");
                expectMismatch(
                        () -> coll.allreduce(
                                comm.world(), b, a, 500, DType.INT64, comm.rank() == 0 ? ReduceOp.MAX : ReduceOp.SUM),
                        "op");
                expectMismatch(
                        () -> coll.broadcast(comm.world(), b, a, 100, DType.UINT8, comm.rank() == 0 ? 1 : 0), "root");
                expectMismatch(
                        () -> {
                            if (comm.rank() == 0) coll.allgather(comm.world(), b, a, 8, DType.UINT8);
                            else coll.alltoall(comm.world(), b, a, 8, DType.UINT8);
                        },
                        "collective");
                long[] counts = {4, 4, 4}, offs = {0, 8, 16};
                long[] recv = comm.rank() == 1 ? new long[] {4, 4, 3} : counts;
                expectMismatch(
                        () -> coll.alltoallv(comm.world(), b, recv, offs, a, counts, offs, DType.UINT8), "alltoallv");
                // After all that, the communicator still works.
                allreduce(coll, comm.world(), a, b, DType.INT32, ReduceOp.SUM, 100, 7);
            }
        });
    }

    /** Runs {@code body} on {@code pes} PEs of the thread double (16 MiB heap each); fails with the root failure. */
    private static void onThreads(int pes, boolean direct, ThreadJob.Work body) {
        try (ThreadWorld w = ThreadWorld.create(pes, direct, 16 << 20)) {
            w.job().properties(SMALL_SLOTS).runOk(body);
        }
    }

    private static void expectMismatch(Runnable call, String what) {
        try {
            call.run();
        } catch (IllegalArgumentException e) {
            assertTrue(e.getMessage().contains("mismatch") || e.getMessage().contains("do not match"), e.getMessage());
            return;
        }
        throw new AssertionError("a " + what + " mismatch across ranks was not detected");
    }

    // ---------------------------------------------------------------- one call + check each

    private static void allreduce(
            Collectives coll,
            Team t,
            SymmetricBuffer src,
            SymmetricBuffer dst,
            DType dt,
            ReduceOp op,
            int count,
            long seed) {
        byte[][] in = new byte[t.size()][];
        for (int p = 0; p < t.size(); p++) in[p] = Reference.data(dt, seed, p, count);
        write(src, in[t.rank()], 0);
        coll.allreduce(t, dst, src, count, dt, op);
        assertArrayEquals(
                Reference.reduce(dt, op, in, count),
                read(dst, 0, in[0].length),
                () -> "allreduce " + dt + " " + op + " count " + count + " team " + t.size()
                        + (src == dst ? " in place" : ""));
    }

    private static void reduceScatter(
            Collectives coll,
            Team t,
            SymmetricBuffer src,
            SymmetricBuffer dst,
            DType dt,
            ReduceOp op,
            int count,
            long seed) {
        int n = t.size(), es = dt.byteSize();
        byte[][] in = new byte[n][];
        for (int p = 0; p < n; p++) in[p] = Reference.data(dt, seed, p, count * n);
        write(src, in[t.rank()], 0);
        coll.reduceScatter(t, dst, src, count, dt, op);
        byte[] all = Reference.reduce(dt, op, in, count * n);
        long at = src == dst ? (long) t.rank() * count * es : 0;
        assertArrayEquals(
                Arrays.copyOfRange(all, t.rank() * count * es, (t.rank() + 1) * count * es),
                read(dst, at, count * es),
                () -> "reduceScatter " + dt + " " + op + " count " + count + " team " + n
                        + (src == dst ? " in place" : ""));
    }

    private static void allgather(
            Collectives coll, Team t, SymmetricBuffer src, SymmetricBuffer dst, int bytes, long seed) {
        int n = t.size();
        byte[] want = new byte[n * bytes];
        for (int p = 0; p < n; p++) System.arraycopy(Reference.bytes(seed, p, bytes), 0, want, p * bytes, bytes);
        write(src, Reference.bytes(seed, t.rank(), bytes), src == dst ? (long) t.rank() * bytes : 0);
        coll.allgather(t, dst, src, bytes, DType.UINT8);
        assertArrayEquals(
                want,
                read(dst, 0, want.length),
                () -> "allgather " + bytes + " B team " + n + (src == dst ? " in place" : ""));
    }

    private static void broadcast(
            Collectives coll, Team t, SymmetricBuffer src, SymmetricBuffer dst, int bytes, int root, long seed) {
        byte[] data = Reference.bytes(seed, root, bytes);
        write(src, t.rank() == root ? data : Reference.bytes(seed + 1, t.rank(), bytes), 0);
        coll.broadcast(t, dst, src, bytes, DType.UINT8, root);
        assertArrayEquals(
                data,
                read(dst, 0, bytes),
                () -> "broadcast " + bytes + " B root " + root + (src == dst ? " in place" : ""));
    }

    private static void alltoall(
            Collectives coll, Team t, SymmetricBuffer src, SymmetricBuffer dst, int bytes, long seed) {
        int n = t.size(), me = t.rank();
        write(src, Reference.bytes(seed, me, n * bytes), 0);
        coll.alltoall(t, dst, src, bytes, DType.UINT8);
        byte[] got = read(dst, 0, n * bytes);
        for (int p = 0; p < n; p++) {
            byte[] theirs = Reference.bytes(seed, p, n * bytes);
            assertArrayEquals(
                    Arrays.copyOfRange(theirs, me * bytes, (me + 1) * bytes),
                    Arrays.copyOfRange(got, p * bytes, (p + 1) * bytes),
                    "alltoall block from " + p);
        }
    }

    /** Member i sends (i + j + base) % 7 bytes to member j, at scattered offsets. */
    private static void alltoallv(
            Collectives coll, Team t, SymmetricBuffer src, SymmetricBuffer dst, int base, long seed) {
        int n = t.size(), me = t.rank();
        long[] sc = new long[n], so = new long[n], rc = new long[n], ro = new long[n];
        long s = 3, r = 5;
        for (int j = 0; j < n; j++) {
            sc[j] = (me + j + base) % 7 * 3;
            so[j] = s;
            s += sc[j] + 1;
            rc[j] = (j + me + base) % 7 * 3;
            ro[j] = r;
            r += rc[j] + 2;
        }
        write(src, Reference.bytes(seed, me, 1 << 12), 0);
        coll.alltoallv(t, dst, rc, ro, src, sc, so, DType.UINT8);
        for (int j = 0; j < n; j++) {
            // Recompute sender j's layout to find what it sent us.
            long off = 3;
            for (int k = 0; k < me; k++) off += (j + k + base) % 7 * 3 + 1;
            byte[] theirs = Reference.bytes(seed, j, 1 << 12);
            byte[] want = Arrays.copyOfRange(theirs, (int) off, (int) (off + rc[j]));
            assertArrayEquals(want, read(dst, ro[j], (int) rc[j]), "alltoallv block from " + j);
        }
    }

    private static void write(SymmetricBuffer b, byte[] data, long at) {
        MemorySegment.copy(MemorySegment.ofArray(data), 0, b.segment(), at, data.length);
    }

    private static byte[] read(SymmetricBuffer b, long at, int len) {
        return b.segment().asSlice(at, len).toArray(ValueLayout.JAVA_BYTE);
    }
}
