package dev.unicomm.api;

/**
 * Sizes a MoE dispatch/combine buffer (DeepEP's {@code Buffer}).
 *
 * @param mode             normal (throughput) or low-latency (decode)
 * @param numExperts       experts in the whole job; divisible by the number of ranks
 * @param hidden           hidden size (channels per token)
 * @param maxTokensPerRank most tokens any rank passes to one dispatch
 * @param numTopk          experts per token (columns of {@code topkIdx})
 * @param useFp8           whether dispatch may carry FP8 (e4m3 + one fp32 scale per 128 channels)
 */
public record MoeConfig(Mode mode, int numExperts, int hidden, int maxTokensPerRank, int numTopk, boolean useFp8) {

    /** Normal mode moves each token once per destination rank; low-latency mode once per expert. */
    public enum Mode { NORMAL, LOW_LATENCY }

    /** Channels that share one FP8 scale. */
    public static final int FP8_BLOCK = 128;

    public MoeConfig {
        if (mode == null) throw new IllegalArgumentException("mode must not be null");
        if (numExperts <= 0) throw new IllegalArgumentException("numExperts must be > 0, got " + numExperts);
        if (hidden <= 0) throw new IllegalArgumentException("hidden must be > 0, got " + hidden);
        if (maxTokensPerRank <= 0) throw new IllegalArgumentException("maxTokensPerRank must be > 0, got " + maxTokensPerRank);
        if (numTopk <= 0 || numTopk > numExperts)
            throw new IllegalArgumentException("numTopk must be in [1, numExperts=" + numExperts + "], got " + numTopk);
        if (useFp8 && hidden % FP8_BLOCK != 0)
            throw new IllegalArgumentException("FP8 needs hidden to be a multiple of " + FP8_BLOCK + ", got " + hidden);
    }

    /** Normal mode, top-8, BF16 and FP8 allowed where hidden is a multiple of 128. */
    public static MoeConfig normal(int numExperts, int hidden, int maxTokensPerRank) {
        return new MoeConfig(Mode.NORMAL, numExperts, hidden, maxTokensPerRank, Math.min(8, numExperts), hidden % FP8_BLOCK == 0);
    }

    /** Low-latency mode, top-8, FP8 allowed where hidden is a multiple of 128. */
    public static MoeConfig lowLatency(int numExperts, int hidden, int maxTokensPerRank) {
        return new MoeConfig(Mode.LOW_LATENCY, numExperts, hidden, maxTokensPerRank, Math.min(8, numExperts), hidden % FP8_BLOCK == 0);
    }

    /** A copy with another top-k. */
    public MoeConfig withTopk(int k) { return new MoeConfig(mode, numExperts, hidden, maxTokensPerRank, k, useFp8); }
}
