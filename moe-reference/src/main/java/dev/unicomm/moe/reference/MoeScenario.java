package dev.unicomm.moe.reference;

import dev.unicomm.api.MoeConfig;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A reproducible MoE test case: every rank generates every rank's input from the seed, so each
 * can compute the reference of what it should see.
 *
 * @param name    shown in failures
 * @param config  the buffer's config ({@code maxTokensPerRank} bounds the token counts)
 * @param ranks   job size
 * @param seed    data and routing seed
 * @param routing how tokens pick experts
 * @param tokens  tokens per rank (uneven counts allowed, 0 allowed)
 */
public record MoeScenario(String name, MoeConfig config, int ranks, long seed, Routing routing, int[] tokens) {

    /** Routing patterns that stress different paths. */
    public enum Routing {
        /** Distinct experts drawn uniformly. */
        UNIFORM,
        /** Every expert of a token lives on one rank (the token goes to exactly one rank). */
        ONE_RANK,
        /** Only experts of the lower half are used: the others get zero tokens. */
        HALF_EXPERTS_IDLE,
        /** About a third of the slots are -1 (some tokens have no expert at all). */
        UNUSED_SLOTS
    }

    /** Uneven token counts: rank r gets {@code max - r * max / (2 * ranks)}, and the last rank none when {@code withEmpty}. */
    public static int[] unevenTokens(int ranks, int max, boolean withEmpty) {
        int[] t = new int[ranks];
        for (int r = 0; r < ranks; r++) t[r] = max - r * max / (2 * ranks);
        if (withEmpty && ranks > 1) t[ranks - 1] = 0;
        return t;
    }

    public MoeReference reference() {
        return new MoeReference(ranks, config.numExperts(), config.hidden(), config.numTopk());
    }

    /** Rank {@code r}'s top-k ids. */
    public long[] topk(int r) {
        SplittableRandom rnd = new SplittableRandom(seed * 1_000_003L + r * 7919L + 1);
        int e = config.numExperts(), k = config.numTopk(), local = e / ranks;
        long[] idx = new long[tokens[r] * k];
        for (int t = 0; t < tokens[r]; t++) {
            List<Long> pool = new ArrayList<>();
            switch (routing) {
                case ONE_RANK -> {
                    int host = rnd.nextInt(ranks);
                    for (int i = 0; i < local; i++) pool.add((long) host * local + i);
                }
                case HALF_EXPERTS_IDLE -> {
                    for (int i = 0; i < Math.max(k, e / 2); i++) pool.add((long) i);
                }
                default -> {
                    for (int i = 0; i < e; i++) pool.add((long) i);
                }
            }
            for (int j = 0; j < k; j++) {
                boolean unused = pool.isEmpty() || (routing == Routing.UNUSED_SLOTS && rnd.nextInt(3) == 0);
                idx[t * k + j] = unused ? -1 : pool.remove(rnd.nextInt(pool.size()));
            }
        }
        return idx;
    }

    /** Rank {@code r}'s BF16 activations {@code [T, H]} (variant {@code v} gives other data for the same routing). */
    public short[] activations(int r, int v) {
        SplittableRandom rnd = new SplittableRandom(seed * 31 + r * 1_000_033L + v * 17L + 5);
        short[] x = new short[tokens[r] * config.hidden()];
        for (int i = 0; i < x.length; i++) x[i] = Bf16.fromFloat((float) (rnd.nextGaussian() * 2));
        return x;
    }

    /** Rank {@code r}'s top-k weights (0 where the slot is -1). */
    public float[] weights(int r) {
        SplittableRandom rnd = new SplittableRandom(seed * 131 + r * 104_729L + 3);
        long[] idx = topk(r);
        float[] w = new float[idx.length];
        for (int i = 0; i < w.length; i++) w[i] = idx[i] < 0 ? 0f : (float) rnd.nextDouble();
        return w;
    }

    /** Every rank's BF16 input batch (variant {@code v} of the data). */
    public List<TokenBatch> bf16Inputs(int v) {
        List<TokenBatch> in = new ArrayList<>();
        for (int r = 0; r < ranks; r++)
            in.add(new TokenBatch(tokens[r], MoeReference.bf16ToBytes(activations(r, v)), null, topk(r), weights(r)));
        return in;
    }

    /** Every rank's FP8 input batch: the BF16 data quantised by the reference quantiser. */
    public List<TokenBatch> fp8Inputs(int v) {
        int h = config.hidden(), cols = h / Fp8E4m3.BLOCK;
        List<TokenBatch> in = new ArrayList<>();
        for (int r = 0; r < ranks; r++) {
            short[] x = activations(r, v);
            byte[] q = new byte[tokens[r] * h];
            float[] s = new float[tokens[r] * cols];
            for (int t = 0; t < tokens[r]; t++) Fp8E4m3.quantiseRow(x, t * h, h, q, t * h, s, t * cols);
            in.add(new TokenBatch(tokens[r], q, s, topk(r), weights(r)));
        }
        return in;
    }

    @Override
    public String toString() {
        return name + " (" + routing + ", ranks=" + ranks + ", E=" + config.numExperts() + ", H=" + config.hidden()
                + ", K=" + config.numTopk() + ", tokens=" + java.util.Arrays.toString(tokens) + ", seed=" + seed + ")";
    }
}
