package dev.unicomm.moe.reference;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The plain-Java reference of unicomm's MoE semantics ({@code docs/spec/moe.md}): layout,
 * normal dispatch/combine (cached-handle dispatch and the backward passes are the same functions),
 * low-latency dispatch/combine, written for clarity, not speed. Every backend's results are
 * compared with these: data movement bit-exactly, sums within one bf16 ulp.
 *
 * <p>Each function computes what one rank sees, from every rank's inputs (a test knows them all:
 * it generates them from a seed). Rank {@code r} hosts experts {@code [r*L, (r+1)*L)}.
 */
public final class MoeReference {
    private final int numRanks, numExperts, numLocal, hidden, numTopk;

    public MoeReference(int numRanks, int numExperts, int hidden, int numTopk) {
        if (numRanks < 1 || numExperts % numRanks != 0)
            throw new IllegalArgumentException(
                    "numExperts " + numExperts + " must be a multiple of numRanks " + numRanks);
        this.numRanks = numRanks;
        this.numExperts = numExperts;
        this.numLocal = numExperts / numRanks;
        this.hidden = hidden;
        this.numTopk = numTopk;
    }

    public int numLocalExperts() {
        return numLocal;
    }

    /** Layout of one rank's {@code topkIdx}. */
    public record Layout(int[] tokensPerRank, int[] tokensPerExpert, boolean[] isTokenInRank) {}

    public Layout layout(long[] topkIdx) {
        int t = topkIdx.length / numTopk;
        int[] perRank = new int[numRanks], perExpert = new int[numExperts];
        boolean[] inRank = new boolean[t * numRanks];
        for (int i = 0; i < t; i++) {
            for (int k = 0; k < numTopk; k++) {
                long e = topkIdx[i * numTopk + k];
                if (e < 0) continue;
                perExpert[(int) e]++;
                inRank[i * numRanks + (int) (e / numLocal)] = true;
            }
            for (int r = 0; r < numRanks; r++) if (inRank[i * numRanks + r]) perRank[r]++;
        }
        return new Layout(perRank, perExpert, inRank);
    }

    /** Which (source rank, source token) each received row of rank {@code dest} holds, in order. */
    public record Routing(int[] srcRank, int[] srcToken) {
        public int size() {
            return srcRank.length;
        }
    }

    /** Normal-mode routing into {@code dest}: by source rank, then token index. */
    public Routing route(int dest, List<long[]> topkPerRank) {
        List<int[]> rows = new ArrayList<>();
        for (int s = 0; s < numRanks; s++) {
            long[] idx = topkPerRank.get(s);
            for (int t = 0; t < idx.length / numTopk; t++) if (hits(idx, t, dest)) rows.add(new int[] {s, t});
        }
        return new Routing(
                rows.stream().mapToInt(a -> a[0]).toArray(),
                rows.stream().mapToInt(a -> a[1]).toArray());
    }

    private boolean hits(long[] idx, int t, int rank) {
        for (int k = 0; k < numTopk; k++) {
            long e = idx[t * numTopk + k];
            if (e >= 0 && e / numLocal == rank) return true;
        }
        return false;
    }

    /** What one rank receives from a normal dispatch. */
    public record Dispatch(
            int numRecv,
            byte[] recvX,
            float[] recvScales,
            long[] recvTopkIdx,
            float[] recvTopkWeights,
            int[] numRecvTokensPerExpert,
            Routing routing) {}

    /** Normal dispatch (also the cached-handle dispatch and combine's backward) seen by {@code rank}. */
    public Dispatch dispatch(int rank, List<TokenBatch> inputs, int expertAlignment) {
        List<long[]> topk = inputs.stream().map(TokenBatch::topkIdx).toList();
        Routing routing = route(rank, topk);
        int n = routing.size();
        boolean fp8 = inputs.get(0).scales() != null;
        int rowBytes = fp8 ? hidden : 2 * hidden, scaleCols = hidden / Fp8E4m3.BLOCK;
        byte[] recvX = new byte[n * rowBytes];
        float[] recvScales = fp8 ? new float[n * scaleCols] : null;
        long[] recvIdx = new long[n * numTopk];
        boolean weights = inputs.get(0).topkWeights() != null;
        float[] recvW = weights ? new float[n * numTopk] : null;
        int[] perExpert = new int[numLocal];
        for (int i = 0; i < n; i++) {
            TokenBatch src = inputs.get(routing.srcRank()[i]);
            int t = routing.srcToken()[i];
            System.arraycopy(src.x(), t * rowBytes, recvX, i * rowBytes, rowBytes);
            if (fp8) System.arraycopy(src.scales(), t * scaleCols, recvScales, i * scaleCols, scaleCols);
            for (int k = 0; k < numTopk; k++) {
                long e = src.topkIdx()[t * numTopk + k];
                boolean local = e >= 0 && e / numLocal == rank;
                recvIdx[i * numTopk + k] = local ? e - (long) rank * numLocal : -1;
                if (weights) recvW[i * numTopk + k] = local ? src.topkWeights()[t * numTopk + k] : 0f;
                if (local) perExpert[(int) (e - (long) rank * numLocal)]++;
            }
        }
        for (int e = 0; e < numLocal; e++) perExpert[e] = ceilTo(perExpert[e], expertAlignment);
        return new Dispatch(n, recvX, recvScales, recvIdx, recvW, perExpert, routing);
    }

    private static int ceilTo(int v, int a) {
        return (v + a - 1) / a * a;
    }

    /** Supplies row {@code row} of rank {@code rank}'s combine input as BF16 patterns. */
    @FunctionalInterface
    public interface RowSource {
        void row(int rank, int row, short[] dst);
    }

    /** Supplies rank {@code rank}'s combine weights row (K floats), or is {@code null}. */
    @FunctionalInterface
    public interface WeightSource {
        float[] row(int rank, int row);
    }

    /** Result of a normal combine on one rank. */
    public record Combined(short[] x, float[] topkWeights) {}

    /**
     * Normal combine (also dispatch's backward) seen by source rank {@code rank}: row t is the sum,
     * over ranks ascending that received t, of their y row, in fp32 starting from the first row,
     * rounded once; zeros where t went nowhere. Weights (if any) are summed the same way.
     */
    public Combined combine(int rank, List<long[]> topkPerRank, RowSource y, WeightSource weights) {
        int t = topkPerRank.get(rank).length / numTopk;
        float[] acc = new float[t * hidden];
        float[] accW = weights == null ? null : new float[t * numTopk];
        boolean[] seen = new boolean[t];
        short[] row = new short[hidden];
        for (int r = 0; r < numRanks; r++) {
            Routing routing = route(r, topkPerRank);
            for (int i = 0; i < routing.size(); i++) {
                if (routing.srcRank()[i] != rank) continue;
                int tok = routing.srcToken()[i];
                y.row(r, i, row);
                float[] w = weights == null ? null : weights.row(r, i);
                for (int c = 0; c < hidden; c++) {
                    float v = Bf16.toFloat(row[c]);
                    acc[tok * hidden + c] = seen[tok] ? acc[tok * hidden + c] + v : v;
                }
                if (w != null)
                    for (int k = 0; k < numTopk; k++)
                        accW[tok * numTopk + k] = seen[tok] ? accW[tok * numTopk + k] + w[k] : w[k];
                seen[tok] = true;
            }
        }
        short[] out = new short[t * hidden];
        for (int i = 0; i < out.length; i++) out[i] = Bf16.fromFloat(acc[i]);
        return new Combined(out, accW);
    }

    /** What one rank receives from a low-latency dispatch. Slots past a count are zero here. */
    public record LowLatencyDispatch(
            int[] recvCount, byte[] recvX, float[] recvScales, int[] srcRank, int[] srcToken, int slotsPerExpert) {}

    /** Low-latency routing into {@code rank}: per local expert, its sources in slot order. */
    public record LowLatencyRouting(int[] recvCount, int[] srcRank, int[] srcToken, int slotsPerExpert) {}

    /** Which (source rank, token) fills each slot of {@code rank}'s experts: by source rank, then token index. */
    public LowLatencyRouting lowLatencyRouting(int rank, List<long[]> topkPerRank, int maxTokensPerRank) {
        int slots = numRanks * maxTokensPerRank;
        int[] srcRank = new int[numLocal * slots], srcToken = new int[numLocal * slots], count = new int[numLocal];
        Arrays.fill(srcRank, -1);
        Arrays.fill(srcToken, -1);
        for (int s = 0; s < numRanks; s++) {
            long[] idx = topkPerRank.get(s);
            for (int t = 0; t < idx.length / numTopk; t++) {
                for (int k = 0; k < numTopk; k++) {
                    long e = idx[t * numTopk + k];
                    if (e < 0 || e / numLocal != rank) continue;
                    int local = (int) (e - (long) rank * numLocal), slot = local * slots + count[local]++;
                    srcRank[slot] = s;
                    srcToken[slot] = t;
                }
            }
        }
        return new LowLatencyRouting(count, srcRank, srcToken, slots);
    }

    /**
     * Low-latency dispatch seen by {@code rank}: for each local expert, the tokens selecting it by
     * source rank then token index, as BF16 rows or (fp8) quantised rows and scales.
     */
    public LowLatencyDispatch lowLatencyDispatch(int rank, List<TokenBatch> inputs, int maxTokensPerRank, boolean fp8) {
        LowLatencyRouting routing =
                lowLatencyRouting(rank, inputs.stream().map(TokenBatch::topkIdx).toList(), maxTokensPerRank);
        int slots = routing.slotsPerExpert(), rowBytes = fp8 ? hidden : 2 * hidden, scaleCols = hidden / Fp8E4m3.BLOCK;
        byte[] recvX = new byte[numLocal * slots * rowBytes];
        float[] recvScales = fp8 ? new float[numLocal * slots * scaleCols] : null;
        short[] bf = new short[hidden];
        byte[] q = new byte[hidden];
        float[] qs = new float[scaleCols];
        for (int slot = 0; slot < numLocal * slots; slot++) {
            int s = routing.srcRank()[slot], t = routing.srcToken()[slot];
            if (s < 0) continue;
            byte[] x = inputs.get(s).x();
            if (fp8) {
                bytesToBf16(x, t * 2 * hidden, bf, hidden);
                Fp8E4m3.quantiseRow(bf, 0, hidden, q, 0, qs, 0);
                System.arraycopy(q, 0, recvX, slot * rowBytes, hidden);
                System.arraycopy(qs, 0, recvScales, slot * scaleCols, scaleCols);
            } else {
                System.arraycopy(x, t * rowBytes, recvX, slot * rowBytes, rowBytes);
            }
        }
        return new LowLatencyDispatch(
                routing.recvCount(), recvX, recvScales, routing.srcRank(), routing.srcToken(), slots);
    }

    /** Supplies rank {@code rank}'s low-latency combine input row {@code [local, slot]} as BF16 patterns. */
    @FunctionalInterface
    public interface SlotSource {
        void row(int rank, int local, int slot, short[] dst);
    }

    /**
     * Low-latency combine seen by source rank {@code rank}: row t = sum over k with topkIdx[t,k] >= 0
     * (k ascending) of {@code weight * y[hosting rank][local expert][slot of t]}, in fp32 from 0,
     * rounded once.
     */
    public short[] lowLatencyCombine(
            int rank, List<long[]> topkPerRank, float[] topkWeights, int maxTokensPerRank, SlotSource y) {
        long[] own = topkPerRank.get(rank);
        int t = own.length / numTopk;
        short[] out = new short[t * hidden], row = new short[hidden];
        float[] acc = new float[hidden];
        for (int i = 0; i < t; i++) {
            Arrays.fill(acc, 0f);
            for (int k = 0; k < numTopk; k++) {
                long e = own[i * numTopk + k];
                if (e < 0) continue;
                int host = (int) (e / numLocal), local = (int) (e % numLocal);
                y.row(host, local, lowLatencySlot(topkPerRank, rank, i, e), row);
                float w = topkWeights[i * numTopk + k];
                for (int c = 0; c < hidden; c++) acc[c] += w * Bf16.toFloat(row[c]);
            }
            for (int c = 0; c < hidden; c++) out[i * hidden + c] = Bf16.fromFloat(acc[c]);
        }
        return out;
    }

    /** Slot of (source rank, token) in expert {@code e}'s receive buffer. */
    public int lowLatencySlot(List<long[]> topkPerRank, int srcRank, int token, long e) {
        int slot = 0;
        for (int s = 0; s <= srcRank; s++) {
            long[] idx = topkPerRank.get(s);
            int limit = s < srcRank ? idx.length / numTopk : token;
            for (int t = 0; t < limit; t++) for (int k = 0; k < numTopk; k++) if (idx[t * numTopk + k] == e) slot++;
        }
        return slot;
    }

    /** Little-endian bytes to BF16 patterns. */
    public static void bytesToBf16(byte[] src, int offset, short[] dst, int count) {
        for (int i = 0; i < count; i++)
            dst[i] = (short) ((src[offset + 2 * i] & 0xFF) | (src[offset + 2 * i + 1] << 8));
    }

    /** BF16 patterns to little-endian bytes. */
    public static byte[] bf16ToBytes(short[] src) {
        byte[] b = new byte[src.length * 2];
        for (int i = 0; i < src.length; i++) {
            b[2 * i] = (byte) src[i];
            b[2 * i + 1] = (byte) (src[i] >> 8);
        }
        return b;
    }
}
