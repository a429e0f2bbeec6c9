package dev.unicomm.benchmarks.bench;

import dev.unicomm.moe.reference.Bf16;
import java.util.SplittableRandom;

/**
 * The inputs of {@code unicomm bench moe}, generated row by row from a seed, so every rank can
 * regenerate any rank's token (for verification) without holding every rank's data.
 */
final class MoeBenchData {
    final long seed;
    final int experts, hidden, topk;
    /** With {@link #masked}: ranks from {@code live} on are inactive (of {@code ranks}); 0 and 0 without a mask. */
    private final int live, ranks;

    MoeBenchData(long seed, int experts, int hidden, int topk) {
        this(seed, experts, hidden, topk, 0, 0);
    }

    private MoeBenchData(long seed, int experts, int hidden, int topk, int live, int ranks) {
        this.seed = seed;
        this.experts = experts;
        this.hidden = hidden;
        this.topk = topk;
        this.live = live;
        this.ranks = ranks;
    }

    /**
     * The same data as the reference sees it with ranks {@code live..ranks-1} inactive: their tokens go nowhere
     * and every top-k entry naming one of their experts is dropped (-1); rows and weights unchanged.
     */
    MoeBenchData masked(int live, int ranks) {
        return new MoeBenchData(seed, experts, hidden, topk, live, ranks);
    }

    /** BF16 patterns of k/32 for every signed byte k (exactly representable: 8 significant bits). */
    private static final short[] VALUES = new short[256];

    static {
        for (int k = -128; k < 128; k++) VALUES[k & 0xFF] = Bf16.fromFloat(k / 32f);
    }

    /** BF16 activations of token {@code t} of rank {@code r}: values k/32, -128 <= k < 128, eight per random long. */
    void row(int r, int t, short[] dst) {
        SplittableRandom rnd = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + (long) r * 1_000_003L + t);
        for (int c = 0; c < hidden; c += 8) {
            long v = rnd.nextLong();
            for (int j = 0; j < 8 && c + j < hidden; j++) dst[c + j] = VALUES[(int) (v >>> (8 * j)) & 0xFF];
        }
    }

    /** Rank {@code r}'s top-k: distinct experts, uniform (DeepEP's tests draw random scores and take the top k). */
    long[] topk(int r, int tokens) {
        SplittableRandom rnd = new SplittableRandom(seed * 31 + r * 7919L + 17);
        int[] pool = new int[experts];
        long[] idx = new long[tokens * topk];
        for (int t = 0; t < tokens; t++) {
            for (int e = 0; e < experts; e++) pool[e] = e;
            for (int k = 0; k < topk; k++) {
                int j = k + rnd.nextInt(experts - k);
                int tmp = pool[k];
                pool[k] = pool[j];
                pool[j] = tmp;
                idx[t * topk + k] = pool[k];
            }
        }
        if (ranks == 0) return idx;
        int local = experts / ranks;
        for (int i = 0; i < idx.length; i++) if (r >= live || idx[i] / local >= live) idx[i] = -1;
        return idx;
    }

    /** Rank {@code r}'s top-k weights in [0, 1). */
    float[] weights(int r, int tokens) {
        SplittableRandom rnd = new SplittableRandom(seed * 131 + r * 104_729L + 3);
        float[] w = new float[tokens * topk];
        for (int i = 0; i < w.length; i++) w[i] = (float) rnd.nextDouble();
        return w;
    }
}
