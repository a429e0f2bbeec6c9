package dev.unicomm.collectives.moe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.Combined;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.Dispatched;
import dev.unicomm.api.HostTopology;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.Tensor;
import dev.unicomm.testsupport.threads.ThreadWorld;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The two-level normal MoE against the flat one on thread-PEs with a simulated topology: dispatch the
 * same rows at the same places (bit for bit), combine within one bf16 ulp, cached dispatch, and the bytes
 * that cross hosts, counted by the buffers themselves, equal to what each algorithm should move: per
 * (token, other rank that gets it) for flat, per (token, other host) for two levels. Up to 64 ranks.
 */
class TwoLevelMoeOnThreadsTest {

    @ParameterizedTest(name = "{0} hosts x {1} ranks, direct={2}")
    @CsvSource({"2,2,true", "2,2,false", "3,2,true", "2,3,false", "8,8,true"})
    void sameResultsAsFlatWithFewerBytesAcrossHosts(int hosts, int perHost, boolean direct) {
        int ranks = hosts * perHost;
        int[] hostOf = new int[ranks];
        for (int r = 0; r < ranks; r++) hostOf[r] = r / perHost;
        int experts = 2 * ranks, hidden = 40, topk = 4, tokens = ranks > 8 ? 6 : 20;
        MoeConfig cfg = new MoeConfig(MoeConfig.Mode.NORMAL, experts, hidden, tokens, topk, false);
        try (ThreadWorld w = ThreadWorld.create(ranks, direct, 8L << 20)) {
            w.job().hosts(hostOf).runOk(comm -> {
                Random rnd = new Random(1000 + comm.rank());
                int t = tokens - comm.rank() % 3;
                try (Arena a = Arena.ofConfined();
                        NormalMoe flat = new NormalMoe(comm, cfg);
                        HierarchicalMoe two = new HierarchicalMoe(comm, cfg)) {
                    Tensor idx = Tensor.allocate(a, DType.INT64, t, topk),
                            wts = Tensor.allocate(a, DType.FP32, t, topk);
                    Tensor x = Tensor.allocate(a, DType.BF16, t, hidden);
                    long[] ids = routing(rnd, t, topk, experts, comm.rank() % 2 == 0);
                    MemorySegment.copy(ids, 0, idx.segment(), ValueLayout.JAVA_LONG_UNALIGNED, 0, ids.length);
                    for (int i = 0; i < t * topk; i++)
                        wts.segment().setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, rnd.nextFloat());
                    for (int i = 0; i < t * hidden; i++)
                        x.segment().setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, bf16(rnd.nextFloat() * 4 - 2));

                    long f0 = flat.interHostBytes(), h0 = two.interHostBytes();
                    Dispatched df = flat.dispatch(x, null, idx, wts, flat.layout(idx), 1);
                    Dispatched dh = two.dispatch(x, null, idx, wts, two.layout(idx), 1);
                    assertArrayEquals(
                            df.recvX().segment().toArray(ValueLayout.JAVA_BYTE),
                            dh.recvX().segment().toArray(ValueLayout.JAVA_BYTE),
                            "recvX");
                    assertArrayEquals(
                            df.recvTopkIdx().segment().toArray(ValueLayout.JAVA_LONG_UNALIGNED),
                            dh.recvTopkIdx().segment().toArray(ValueLayout.JAVA_LONG_UNALIGNED),
                            "recvTopkIdx");
                    assertArrayEquals(
                            df.recvTopkWeights().segment().toArray(ValueLayout.JAVA_FLOAT_UNALIGNED),
                            dh.recvTopkWeights().segment().toArray(ValueLayout.JAVA_FLOAT_UNALIGNED),
                            "recvTopkWeights");
                    assertArrayEquals(
                            df.numRecvTokensPerExpert(), dh.numRecvTokensPerExpert(), "numRecvTokensPerExpert");
                    long[] expected = expectedBytes(comm, ids, t, topk, experts / ranks, hidden);
                    assertEquals(expected[0], flat.interHostBytes() - f0, "flat dispatch bytes across hosts");
                    assertEquals(expected[1], two.interHostBytes() - h0, "two-level dispatch bytes across hosts");

                    // Combine of y = recvX in place with the received weights.
                    f0 = flat.interHostBytes();
                    h0 = two.interHostBytes();
                    Combined cf = flat.combine(df.recvX(), df.handle(), df.recvTopkWeights());
                    Combined ch = two.combine(dh.recvX(), dh.handle(), dh.recvTopkWeights());
                    withinOneUlp(cf.x(), ch.x());
                    assertArrayEquals(
                            cf.topkWeights().segment().toArray(ValueLayout.JAVA_FLOAT_UNALIGNED),
                            ch.topkWeights().segment().toArray(ValueLayout.JAVA_FLOAT_UNALIGNED),
                            "combined weights (one nonzero per slot)");
                    assertEquals(expected[2], flat.interHostBytes() - f0, "flat combine bytes across hosts");
                    assertEquals(expected[3], two.interHostBytes() - h0, "two-level combine bytes across hosts");
                    // Never more data (the 8-byte row count per other host aside): one row per (token, host) instead of
                    // per (token, rank).
                    assertTrue(
                            expected[1] - 8L * (hosts - 1) <= expected[0] && expected[3] <= expected[2],
                            "two levels never move more");

                    // Cached dispatch of new data reuses the two-level routes.
                    for (int i = 0; i < t * hidden; i++)
                        x.segment().setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, bf16(rnd.nextFloat()));
                    Dispatched cf2 = flat.dispatch(x, null, df.handle());
                    Dispatched ch2 = two.dispatch(x, null, dh.handle());
                    assertArrayEquals(
                            cf2.recvX().segment().toArray(ValueLayout.JAVA_BYTE),
                            ch2.recvX().segment().toArray(ValueLayout.JAVA_BYTE),
                            "cached recvX");
                }
            });
        }
    }

    /** Top-k ids without repeats per row; {@code clustered}: all of a token's experts on one host's ranks where possible, and some -1. */
    private static long[] routing(Random rnd, int t, int k, int experts, boolean clustered) {
        long[] ids = new long[t * k];
        for (int i = 0; i < t; i++) {
            int base = clustered ? rnd.nextInt(experts / 2) * 2 % Math.max(1, experts - 2 * k) : 0;
            for (int j = 0; j < k; j++) {
                long e;
                do e = clustered ? base + rnd.nextInt(2 * k) : rnd.nextInt(experts);
                while (contains(ids, i * k, j, e));
                ids[i * k + j] = clustered && j == k - 1 && i % 3 == 0 ? -1 : e;
            }
        }
        return ids;
    }

    private static boolean contains(long[] ids, int from, int n, long e) {
        for (int j = 0; j < n; j++) if (ids[from + j] == e) return true;
        return false;
    }

    /** {flat dispatch, two-level dispatch, flat combine, two-level combine} bytes this rank moves across hosts. */
    static long[] expectedBytes(Communicator comm, long[] ids, int t, int k, int perRank, int hidden) {
        HostTopology topo = comm.topology();
        int ranks = comm.size(), hosts = topo.hostCount();
        long remoteRanks = 0;
        for (int r = 0; r < ranks; r++) if (topo.hostOf(r) != topo.host()) remoteRanks++;
        long row = 2L * hidden + 12L * k, meta = remoteRanks * (8 + 8L * ranks); // flags + counts read from each
        long fd = meta, hd = meta + 8L * (hosts - 1), fc = 8 * remoteRanks, hc = 8 * remoteRanks;
        for (int i = 0; i < t; i++) {
            int[] perHost = new int[hosts];
            boolean[] rank = new boolean[ranks];
            for (int j = 0; j < k; j++) if (ids[i * k + j] >= 0) rank[(int) (ids[i * k + j] / perRank)] = true;
            for (int r = 0; r < ranks; r++) {
                if (!rank[r] || topo.hostOf(r) == topo.host()) continue;
                perHost[topo.hostOf(r)]++;
                fd += row;
                fc += 2L * hidden + 4L * k;
            }
            for (int g = 0; g < hosts; g++) {
                if (perHost[g] == 0) continue;
                hd += row;
                hc += (perHost[g] == 1 ? 2L * hidden : 4L * hidden) + 4L * k;
            }
        }
        return new long[] {fd, hd, fc, hc};
    }

    private static void withinOneUlp(Tensor expected, Tensor actual) {
        short[] e = expected.segment().toArray(ValueLayout.JAVA_SHORT_UNALIGNED),
                a = actual.segment().toArray(ValueLayout.JAVA_SHORT_UNALIGNED);
        assertEquals(e.length, a.length);
        for (int i = 0; i < e.length; i++)
            assertTrue(
                    Math.abs(e[i] - a[i]) <= 1 || (e[i] & 0x7fff) == 0 && (a[i] & 0x7fff) == 0,
                    "combine element " + i + ": flat " + Integer.toHexString(e[i] & 0xffff) + ", two-level "
                            + Integer.toHexString(a[i] & 0xffff));
    }

    private static short bf16(float f) {
        return (short) (Float.floatToRawIntBits(f) + 0x8000 >>> 16);
    }
}
