package dev.unicomm.backend.ucx.hosts;

import dev.unicomm.api.Combined;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.Dispatched;
import dev.unicomm.api.HostTopology;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.Tensor;
import dev.unicomm.api.Unicomm;
import dev.unicomm.moe.reference.MoeConformance;
import dev.unicomm.moe.reference.MoeReference;
import dev.unicomm.moe.reference.MoeScenario;
import dev.unicomm.moe.reference.TokenBatch;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * One rank of {@link UcxTwoLevelMoeTest}. {@code check}: the world's allgather (two levels), then the kit's normal-mode MoE rules with the
 * algorithm the topology picks (two levels on 2 hosts x 2 ranks), against the reference. {@code bench
 * TOKENS ITERS}: DeepSeek-V3's shape (hidden 7168, top-8 of 256 experts) with few tokens, on a uniform and
 * a clustered routing (each token's experts on one host), flat and two-level buffers side by side, their
 * rounds interleaved; dispatch checked against the reference and combine of both within one bf16 ulp of
 * each other; prints per rank the median times and the bytes each algorithm sends across hosts, counted
 * here from the routing.
 */
public final class HostsMoeRank {
    private static final String ALGORITHM = "unicomm.moe.algorithm";
    private static final int HIDDEN = 7168, TOPK = 8, EXPERTS = 256;

    private HostsMoeRank() {}

    public static void main(String[] args) throws Exception {
        try (Communicator comm = Unicomm.connect()) {
            if (args[0].equals("check")) check(comm);
            else if (args[0].equals("reduce"))
                benchReductions(comm, Integer.parseInt(args[1]), Integer.parseInt(args[2]));
            else if (args[0].equals("allgather"))
                benchAllgather(comm, Integer.parseInt(args[1]), Integer.parseInt(args[2]));
            else bench(comm, Integer.parseInt(args[1]), Integer.parseInt(args[2]));
            comm.barrier();
            System.out.println("PASS rank=" + comm.rank() + " topology=" + comm.topology());
        } catch (Throwable t) {
            System.out.println("FAIL " + t);
            t.printStackTrace(System.out);
            System.exit(1);
        }
    }

    static void check(Communicator comm) {
        int ranks = comm.size();
        allgatherAcrossHosts(comm);
        reductionsAcrossHosts(comm);
        MoeConfig bf16 = new MoeConfig(MoeConfig.Mode.NORMAL, 4 * ranks, 96, 24, 4, false);
        MoeConfig fp8 = new MoeConfig(MoeConfig.Mode.NORMAL, 4 * ranks, 256, 24, 4, true);
        long seed = 5;
        for (MoeScenario.Routing routing : MoeScenario.Routing.values()) {
            try (MoeBuffer moe = comm.moe(bf16)) {
                boolean twoLevel = moe.footprintBytes() > bf16.sizeHint(ranks) + bf16.outputBytes();
                if (twoLevel == comm.topology().singleHost())
                    throw new AssertionError("two-level=" + twoLevel + " on " + comm.topology());
                new MoeConformance(
                                comm,
                                new MoeScenario(
                                        routing.name(),
                                        bf16,
                                        ranks,
                                        seed,
                                        routing,
                                        MoeScenario.unevenTokens(ranks, 24, seed % 2 == 0)))
                        .checkNormal(moe, false);
                seed++;
            }
        }
        try (MoeBuffer moe = comm.moe(fp8)) {
            new MoeConformance(
                            comm,
                            new MoeScenario(
                                    "fp8",
                                    fp8,
                                    ranks,
                                    9,
                                    MoeScenario.Routing.UNIFORM,
                                    MoeScenario.unevenTokens(ranks, 24, false)))
                    .checkNormal(moe, true);
        }
    }

    /** The world's allgather (two levels on 2 hosts x 2 ranks above the inline size), every block checked, in and out of place. */
    static void allgatherAcrossHosts(Communicator comm) {
        int n = comm.size(), me = comm.rank();
        for (int bytes : new int[] {1000, 40_000, 300_001}) {
            try (dev.unicomm.api.SymmetricBuffer src = comm.heap().allocate((long) n * bytes);
                    dev.unicomm.api.SymmetricBuffer dst = comm.heap().allocate((long) n * bytes)) {
                for (boolean inPlace : new boolean[] {false, true}) {
                    dev.unicomm.api.SymmetricBuffer out = inPlace ? src : dst;
                    long at = inPlace ? (long) me * bytes : 0;
                    for (int i = 0; i < bytes; i++)
                        src.segment().set(ValueLayout.JAVA_BYTE, at + i, (byte) (me * 37 + i * 11 + bytes));
                    comm.collectives().allgather(comm.world(), out, src, bytes, DType.UINT8);
                    for (int p = 0; p < n; p++)
                        for (int i = 0; i < bytes; i++)
                            if (out.segment().get(ValueLayout.JAVA_BYTE, (long) p * bytes + i)
                                    != (byte) (p * 37 + i * 11 + bytes))
                                throw new AssertionError("allgather of " + bytes + " B" + (inPlace ? " in place" : "")
                                        + ": block " + p + " byte " + i);
                    comm.barrier();
                }
            }
        }
    }

    /**
     * The world's FP32 allreduce and reduce-scatter (two levels on 2 hosts x 2 ranks above the inline size), in and
     * out of place, each element equal in its bits to the left fold over ranks 0..n-1 that the flat algorithm computes.
     */
    static void reductionsAcrossHosts(Communicator comm) {
        int n = comm.size(), me = comm.rank();
        for (int count : new int[] {5000, 100_003}) {
            try (dev.unicomm.api.SymmetricBuffer src = comm.heap().allocate(4L * n * count);
                    dev.unicomm.api.SymmetricBuffer dst = comm.heap().allocate(4L * n * count)) {
                for (boolean inPlace : new boolean[] {false, true}) {
                    dev.unicomm.api.SymmetricBuffer out = inPlace ? src : dst;
                    for (int i = 0; i < count; i++) src.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, input(me, i));
                    comm.collectives()
                            .allreduce(comm.world(), out, src, count, DType.FP32, dev.unicomm.api.ReduceOp.SUM);
                    for (int i = 0; i < count; i++)
                        if (Float.floatToRawIntBits(out.segment().getAtIndex(ValueLayout.JAVA_FLOAT, i))
                                != Float.floatToRawIntBits(fold(n, i)))
                            throw new AssertionError(
                                    "allreduce FP32 of " + count + (inPlace ? " in place" : "") + ": element " + i);
                    comm.barrier();
                    for (int i = 0; i < n * count; i++)
                        src.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, input(me, i));
                    comm.collectives()
                            .reduceScatter(comm.world(), out, src, count, DType.FP32, dev.unicomm.api.ReduceOp.SUM);
                    long at = inPlace ? (long) me * count : 0;
                    for (int i = 0; i < count; i++)
                        if (Float.floatToRawIntBits(out.segment().getAtIndex(ValueLayout.JAVA_FLOAT, at + i))
                                != Float.floatToRawIntBits(fold(n, me * count + i)))
                            throw new AssertionError("reduce-scatter FP32 of " + count + (inPlace ? " in place" : "")
                                    + ": element " + i);
                    comm.barrier();
                }
            }
        }
    }

    /** Inputs of very different magnitudes, so that another summation order would change the bits. */
    private static float input(int rank, int i) {
        return (float) (StrictMath.sin(rank * 7919.0 + i) * StrictMath.pow(10, (rank + i) % 7 - 3));
    }

    private static float fold(int n, int i) {
        float acc = input(0, i);
        for (int p = 1; p < n; p++) acc += input(p, i);
        return acc;
    }

    /** The world's allgather of {@code bytes} per rank, {@code iters} timed calls after one checked one; prints the median. */
    static void benchAllgather(Communicator comm, int bytes, int iters) {
        int n = comm.size(), me = comm.rank();
        try (dev.unicomm.api.SymmetricBuffer src = comm.heap().allocate(bytes);
                dev.unicomm.api.SymmetricBuffer dst = comm.heap().allocate((long) n * bytes)) {
            for (int i = 0; i < bytes; i++) src.segment().set(ValueLayout.JAVA_BYTE, i, (byte) (me + i));
            long[] ns = new long[iters];
            for (int it = -1; it < iters; it++) {
                comm.barrier();
                long t0 = System.nanoTime();
                comm.collectives().allgather(comm.world(), dst, src, bytes, DType.UINT8);
                long t1 = System.nanoTime();
                if (it < 0) {
                    for (int p = 0; p < n; p++)
                        for (int i = 0; i < bytes; i += 997)
                            if (dst.segment().get(ValueLayout.JAVA_BYTE, (long) p * bytes + i) != (byte) (p + i))
                                throw new AssertionError("allgather block " + p + " byte " + i);
                } else ns[it] = t1 - t0;
            }
            System.out.printf(
                    Locale.ROOT,
                    "AG two_level=%s rank=%d bytes=%d us=%.1f%n",
                    System.getenv("UNICOMM_COLLECTIVES_TWO_LEVEL"),
                    me,
                    bytes,
                    median(ns) / 1e3);
        }
    }

    /**
     * The world's FP32 allreduce of {@code bytes} and reduce-scatter of {@code bytes} (in all), {@code iters} timed calls
     * each after one checked one (against the rank-order fold); prints the medians.
     */
    static void benchReductions(Communicator comm, int bytes, int iters) {
        int n = comm.size(), me = comm.rank(), count = bytes / 4;
        try (dev.unicomm.api.SymmetricBuffer src = comm.heap().allocate(bytes);
                dev.unicomm.api.SymmetricBuffer dst = comm.heap().allocate(bytes)) {
            for (boolean scatter : new boolean[] {false, true}) {
                long[] ns = new long[iters];
                for (int it = -1; it < iters; it++) {
                    for (int i = 0; i < count; i++) src.segment().setAtIndex(ValueLayout.JAVA_FLOAT, i, input(me, i));
                    comm.barrier();
                    long t0 = System.nanoTime();
                    if (scatter)
                        comm.collectives()
                                .reduceScatter(
                                        comm.world(), dst, src, count / n, DType.FP32, dev.unicomm.api.ReduceOp.SUM);
                    else
                        comm.collectives()
                                .allreduce(comm.world(), dst, src, count, DType.FP32, dev.unicomm.api.ReduceOp.SUM);
                    long t1 = System.nanoTime();
                    if (it < 0) {
                        long first = scatter ? (long) me * (count / n) : 0, len = scatter ? count / n : count;
                        for (int i = 0; i < len; i += 97)
                            if (Float.floatToRawIntBits(dst.segment().getAtIndex(ValueLayout.JAVA_FLOAT, i))
                                    != Float.floatToRawIntBits(fold(n, (int) first + i)))
                                throw new AssertionError((scatter ? "reduce-scatter" : "allreduce") + " element " + i);
                    } else ns[it] = t1 - t0;
                }
                System.out.printf(
                        Locale.ROOT,
                        "%s two_level=%s rank=%d bytes=%d us=%.1f%n",
                        scatter ? "RS" : "AR",
                        System.getenv("UNICOMM_COLLECTIVES_TWO_LEVEL"),
                        me,
                        bytes,
                        median(ns) / 1e3);
            }
        }
    }

    static void bench(Communicator comm, int tokens, int iters) {
        int ranks = comm.size(), me = comm.rank();
        MoeConfig cfg = MoeConfig.normal(EXPERTS, HIDDEN, tokens);
        for (String routing : List.of("uniform", "clustered")) {
            List<long[]> ids = new ArrayList<>();
            for (int r = 0; r < ranks; r++) ids.add(routing(comm.topology(), r, tokens, routing.equals("clustered")));
            List<TokenBatch> in = new ArrayList<>();
            for (int r = 0; r < ranks; r++)
                in.add(new TokenBatch(tokens, activations(r, tokens), null, ids.get(r), null));
            MoeReference.Dispatch expected = new MoeReference(ranks, EXPERTS, HIDDEN, TOPK).dispatch(me, in, 1);
            System.setProperty(ALGORITHM, "flat");
            MoeBuffer flat = comm.moe(cfg);
            System.setProperty(ALGORITHM, "hierarchical");
            MoeBuffer two = comm.moe(cfg);
            try (Arena a = Arena.ofConfined();
                    flat;
                    two) {
                Tensor x = Tensor.allocate(a, DType.BF16, tokens, HIDDEN),
                        idx = Tensor.allocate(a, DType.INT64, tokens, TOPK);
                MemorySegment.copy(
                        in.get(me).x(),
                        0,
                        x.segment(),
                        ValueLayout.JAVA_BYTE,
                        0,
                        in.get(me).x().length);
                MemorySegment.copy(
                        ids.get(me), 0, idx.segment(), ValueLayout.JAVA_LONG_UNALIGNED, 0, ids.get(me).length);
                long[][] ns = new long[4][iters];
                short[] combinedFlat = null;
                for (int it = -1; it < iters; it++) { // round -1: warm-up and verification
                    for (int alg = 0; alg < 2; alg++) {
                        MoeBuffer moe = alg == 0 ? flat : two;
                        comm.barrier();
                        long t0 = System.nanoTime();
                        Dispatched d = moe.dispatch(x, null, idx, null, moe.layout(idx), 1);
                        long t1 = System.nanoTime();
                        comm.barrier();
                        long t2 = System.nanoTime();
                        Combined c = moe.combine(d.recvX(), d.handle(), null);
                        long t3 = System.nanoTime();
                        if (it < 0) {
                            byte[] got = d.recvX().segment().toArray(ValueLayout.JAVA_BYTE);
                            if (!Arrays.equals(got, expected.recvX()))
                                throw new AssertionError((alg == 0 ? "flat" : "two-level")
                                        + " dispatch differs from the reference on " + routing);
                            short[] sum = c.x().segment().toArray(ValueLayout.JAVA_SHORT_UNALIGNED);
                            if (alg == 0) combinedFlat = sum;
                            else
                                for (int i = 0; i < sum.length; i++)
                                    if (Math.abs(sum[i] - combinedFlat[i]) > 1
                                            && ((sum[i] | combinedFlat[i]) & 0x7fff) != 0)
                                        throw new AssertionError(
                                                "two-level combine differs from flat by more than one ulp at " + i
                                                        + " on " + routing);
                        } else {
                            ns[2 * alg][it] = t1 - t0;
                            ns[2 * alg + 1][it] = t3 - t2;
                        }
                    }
                }
                long[] bytes = interHostBytes(comm.topology(), ids.get(me), tokens);
                for (int alg = 0; alg < 2; alg++)
                    System.out.printf(
                            Locale.ROOT,
                            "MOE routing=%s alg=%s rank=%d tokens=%d dispatch_us=%.1f combine_us=%.1f dispatch_bytes=%d combine_bytes=%d rows_ranks=%d rows_hosts=%d topk_remote=%d%n",
                            routing,
                            alg == 0 ? "flat" : "hierarchical",
                            me,
                            tokens,
                            median(ns[2 * alg]) / 1e3,
                            median(ns[2 * alg + 1]) / 1e3,
                            bytes[alg == 0 ? 0 : 1],
                            bytes[alg == 0 ? 2 : 3],
                            bytes[4],
                            bytes[5],
                            bytes[6]);
            }
        }
        System.clearProperty(ALGORITHM);
    }

    /**
     * Rank {@code r}'s ids: {@code uniform} = 8 distinct experts of 256 at random; {@code clustered} = 8
     * distinct experts of one host, that host drawn at random per token (DeepSeek's node-limited routing, at its limit of one node).
     */
    static long[] routing(HostTopology topo, int r, int tokens, boolean clustered) {
        SplittableRandom rnd = new SplittableRandom(77 + r * 1_000_003L + (clustered ? 5 : 0));
        int perRank = EXPERTS / topo.size();
        long[] ids = new long[tokens * TOPK];
        for (int t = 0; t < tokens; t++) {
            List<Long> pool = new ArrayList<>();
            int host = rnd.nextInt(topo.hostCount());
            for (int e = 0; e < EXPERTS; e++) if (!clustered || topo.hostOf(e / perRank) == host) pool.add((long) e);
            for (int j = 0; j < TOPK; j++) ids[t * TOPK + j] = pool.remove(rnd.nextInt(pool.size()));
        }
        return ids;
    }

    static byte[] activations(int r, int tokens) {
        SplittableRandom rnd = new SplittableRandom(1234 + r);
        byte[] x = new byte[tokens * HIDDEN * 2];
        for (int i = 0; i < x.length; i += 2) {
            int b = Float.floatToRawIntBits((float) rnd.nextGaussian());
            short s = (short) ((b + 0x7fff + ((b >>> 16) & 1)) >>> 16);
            x[i] = (byte) s;
            x[i + 1] = (byte) (s >> 8);
        }
        return x;
    }

    /**
     * Bytes this rank sends (dispatch) and fetches (combine) across hosts, from its routing: flat moves a row
     * (2H, with its K ids beside it: 8K) per (token, rank of another host that gets it), two levels per
     * (token, other host) plus one 8-byte row count per other host; combine fetches 2H per (token, rank)
     * flat, and per (token, host) 2H where one rank of that host got it, else the 4H fp32 partial sum. Then
     * the row counts: (token, remote rank) pairs, (token, remote host) pairs, and remote top-k entries.
     */
    static long[] interHostBytes(HostTopology topo, long[] ids, int tokens) {
        int ranks = topo.size(), hosts = topo.hostCount(), perRank = EXPERTS / ranks;
        long row = 2L * HIDDEN + 8L * TOPK,
                fd = 0,
                hd = 8L * (hosts - 1),
                fc = 0,
                hc = 0,
                pairsRanks = 0,
                pairsHosts = 0,
                remoteTopk = 0;
        for (int t = 0; t < tokens; t++) {
            boolean[] at = new boolean[ranks];
            for (int j = 0; j < TOPK; j++) {
                int r = (int) (ids[t * TOPK + j] / perRank);
                at[r] = true;
                if (topo.hostOf(r) != topo.host()) remoteTopk++;
            }
            int[] perHost = new int[hosts];
            for (int r = 0; r < ranks; r++) if (at[r] && topo.hostOf(r) != topo.host()) perHost[topo.hostOf(r)]++;
            for (int g = 0; g < hosts; g++) {
                if (perHost[g] == 0) continue;
                fd += perHost[g] * row;
                fc += perHost[g] * 2L * HIDDEN;
                hd += row;
                hc += perHost[g] == 1 ? 2L * HIDDEN : 4L * HIDDEN;
                pairsRanks += perHost[g];
                pairsHosts++;
            }
        }
        return new long[] {fd, hd, fc, hc, pairsRanks, pairsHosts, remoteTopk};
    }

    private static double median(long[] v) {
        long[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2.0;
    }
}
