package dev.unicomm.collectives;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.ReduceOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.testsupport.threads.ThreadWorld;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The two-level (chain) allreduce and reduce-scatter on simulated hosts: for every dtype and op, in place
 * and out of place, the same bits as the flat algorithm and as {@link Reference}, and the bytes that cross
 * hosts (all ranks together) exactly what {@link TwoLevelReduction}'s formula says, against the flat one's.
 * Small slots (256 B) make the chain run many pieces.
 */
class TwoLevelReductionTest {
    private static final DType[] TYPES = {DType.INT32, DType.INT64, DType.FP32, DType.FP16, DType.BF16};
    private static final int[] COUNTS = {13, 300, 1001};
    private static final long INLINE = 64;

    @ParameterizedTest(name = "hosts {0}")
    @CsvSource({"0 0 1 1", "0 0 1 1 2 2", "0 0 0 1 1 1", "0 1 0 1"})
    void sameBitsAsFlatAndFewerBytesAcrossHosts(String hostsOfRanks) {
        int[] hostOf = Arrays.stream(hostsOfRanks.split(" "))
                .mapToInt(Integer::parseInt)
                .toArray();
        int n = hostOf.length, hosts = Arrays.stream(hostOf).max().orElseThrow() + 1, local = n / hosts;
        boolean hostMajor = true;
        for (int r = 0; r < n; r++) hostMajor &= hostOf[r] == r / local;
        boolean chainable = hostMajor;
        try (ThreadWorld w = ThreadWorld.create(n, false, 16 << 20)) {
            w.job().hosts(hostOf).runOk(comm -> {
                CollectivesSettings small = new CollectivesSettings(256, INLINE, false);
                try (PortableCollectives two = new PortableCollectives(comm, small, true);
                        PortableCollectives flat = new PortableCollectives(comm, small, false);
                        SymmetricBuffer a = comm.heap().allocate(64 << 10);
                        SymmetricBuffer b = comm.heap().allocate(64 << 10);
                        SymmetricBuffer tally = comm.heap().allocate(16)) {
                    long seed = 900;
                    for (int count : COUNTS) {
                        for (boolean inPlace : new boolean[] {false, true}) {
                            for (DType dt : TYPES) {
                                for (ReduceOp op : ReduceOp.values()) {
                                    boolean all = true;
                                    do {
                                        check(
                                                comm,
                                                two,
                                                flat,
                                                tally,
                                                a,
                                                inPlace ? a : b,
                                                dt,
                                                op,
                                                count,
                                                seed++,
                                                all,
                                                hosts,
                                                local,
                                                chainable);
                                        all = !all;
                                    } while (!all);
                                }
                            }
                        }
                    }
                }
            });
        }
    }

    /** The formula's choice: the chain only where it moves fewer bytes (BF16/FP16 reduce-scatter on 2 ranks a host stays flat). */
    @Test
    void chainOnlyWhereItMovesFewerBytes() {
        assertTrue(TwoLevelReduction.fewerBytes(true, DType.BF16, 2, 2)); // 3 S (H-1) < 4 S (H-1)
        assertTrue(TwoLevelReduction.fewerBytes(false, DType.FP32, 2, 2)); // 1.5 S < 2 S
        assertFalse(TwoLevelReduction.fewerBytes(false, DType.BF16, 2, 2)); // 2.5 S > 2 S
        assertTrue(TwoLevelReduction.fewerBytes(false, DType.FP16, 2, 3)); // 2.5 S < 3 S
    }

    /** One call of one collective on both instances; results against the reference, bytes against the formulas. */
    private static void check(
            Communicator comm,
            PortableCollectives two,
            PortableCollectives flat,
            SymmetricBuffer tally,
            SymmetricBuffer src,
            SymmetricBuffer dst,
            DType dt,
            ReduceOp op,
            int count,
            long seed,
            boolean allreduce,
            int hosts,
            int local,
            boolean chainable) {
        int n = comm.size(), me = comm.rank(), es = dt.byteSize();
        int elements = allreduce ? count : count * n;
        byte[][] in = new byte[n][];
        for (int p = 0; p < n; p++) in[p] = Reference.data(dt, seed, p, elements);
        byte[] want = Reference.reduce(dt, op, in, elements);
        long at = allreduce || src != dst ? 0 : (long) me * count * es;
        int len = count * es;
        if (!allreduce) want = Arrays.copyOfRange(want, me * count * es, (me + 1) * count * es);
        byte[][] got = new byte[2][];
        long[] crossed = new long[2];
        PortableCollectives[] impls = {two, flat};
        for (int i = 0; i < 2; i++) {
            MemorySegment.copy(MemorySegment.ofArray(in[me]), 0, src.segment(), 0, in[me].length);
            long before = impls[i].interHostBytes();
            if (allreduce) impls[i].allreduce(comm.world(), dst, src, count, dt, op);
            else impls[i].reduceScatter(comm.world(), dst, src, count, dt, op);
            crossed[i] = sum(comm, tally, impls[i].interHostBytes() - before);
            got[i] = dst.segment().asSlice(at, len).toArray(ValueLayout.JAVA_BYTE);
        }
        String what = (allreduce ? "allreduce " : "reduceScatter ") + dt + " " + op + " count " + count
                + (src == dst ? " in place" : "");
        assertArrayEquals(want, got[1], () -> "flat " + what);
        assertArrayEquals(got[1], got[0], () -> "two levels differ from flat: " + what);
        if ((long) count * es <= INLINE) return; // inline: no two levels, payload rides in the descriptors
        long s = (long) elements * es, pb = Reducer.partialBytes(dt);
        long flatBytes = allreduce ? 2 * s * (n - local) : s * (n - local);
        long chainBytes = allreduce
                ? (hosts - 1) * (long) count * (pb + es)
                : (hosts - 1) * (long) n * count * pb + (long) local * (hosts - 1) * count * es;
        boolean chain = chainable && TwoLevelReduction.fewerBytes(allreduce, dt, hosts, local);
        assertEquals(flatBytes, crossed[1], () -> "flat bytes across hosts, " + what);
        assertEquals(chain ? chainBytes : flatBytes, crossed[0], () -> "two-level bytes across hosts, " + what);
        if (chain) assertTrue(chainBytes < flatBytes, what);
    }

    /** The sum of every rank's value, through the communicator's own collectives ({@code tally}: 16 bytes of scratch). */
    private static long sum(Communicator comm, SymmetricBuffer tally, long mine) {
        tally.segment().set(ValueLayout.JAVA_LONG, 0, mine);
        comm.collectives().allreduce(comm.world(), tally, tally, 1, DType.INT64, ReduceOp.SUM);
        return tally.segment().get(ValueLayout.JAVA_LONG, 0);
    }
}
