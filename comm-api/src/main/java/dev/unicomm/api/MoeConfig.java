package dev.unicomm.api;

/**
 * Sizes a MoE dispatch/combine buffer (DeepEP's {@code Buffer}). Rank {@code r} of {@code R} hosts
 * experts {@code [r*L, (r+1)*L)} with {@code L = numExperts / R}.
 *
 * <p>Memory: {@link #sizeHint(int)} is the symmetric memory one rank needs for this config in the
 * worst routing (every token of every rank sent to this rank), {@link #outputBytes()} the private
 * memory of the combine outputs; the implementations allocate at most these (the portable one
 * exactly these) and report what they allocated as {@link MoeBuffer#footprintBytes()}. Formulas (bytes; {@code T = maxTokensPerRank},
 * {@code H = hidden}, {@code K = numTopk}, {@code R} ranks, {@code L = numExperts / R}):
 * <ul>
 *   <li>normal: {@code 64 + max(12*T*K, 8R) + R*T*(2H + 12K)}: a header, the count exchange
 *       (the portable path's {@code R} row counts; room for the native backends' counters), and
 *       the receive area for up to {@code R*T} tokens (data, ids, weights); FP8 rows ({@code H} bytes + {@code H/128} fp32 scales) fit in the
 *       {@code 2H} bytes of a BF16 row. Outputs: {@code T*(2H + 4K)}.</li>
 *   <li>low-latency: {@code 64 + 32*R + 2*(T*(2H + 8K) + L*R*T*2H + R*T*(4H + 16K))}: a header
 *       (acknowledgement counters), four signal words per source rank (data ready, per
 *       generation, for dispatch and combine), two generations (DeepEP's double buffer) of the
 *       staged input (data and ids) and of the per-expert receive buffers {@code [L, R*T, H]}
 *       (which also stage the combine's input), and two generations of a combine area where the
 *       ranks holding a token's experts push their share of its sum (one fp32 row per source
 *       rank and token, with row maps and weights); the portable implementation pulls instead
 *       and leaves that area unused. Outputs: {@code 2*T*2H} (one per generation).</li>
 * </ul>
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
    public enum Mode {
        NORMAL,
        LOW_LATENCY
    }

    /** Channels that share one FP8 scale. */
    public static final int FP8_BLOCK = 128;

    /** Bytes of the header in {@link #sizeHint(int)}. */
    public static final int HEADER_BYTES = 64;
    /** Bytes of signal words per rank in low-latency mode. */
    public static final int SIGNAL_BYTES_PER_RANK = 32;

    public MoeConfig {
        if (mode == null) throw new IllegalArgumentException("mode must not be null");
        if (numExperts <= 0) throw new IllegalArgumentException("numExperts must be > 0, got " + numExperts);
        if (hidden <= 0) throw new IllegalArgumentException("hidden must be > 0, got " + hidden);
        if (maxTokensPerRank <= 0)
            throw new IllegalArgumentException("maxTokensPerRank must be > 0, got " + maxTokensPerRank);
        if (numTopk <= 0 || numTopk > numExperts)
            throw new IllegalArgumentException("numTopk must be in [1, numExperts=" + numExperts + "], got " + numTopk);
        if (useFp8 && hidden % FP8_BLOCK != 0)
            throw new IllegalArgumentException("FP8 needs hidden to be a multiple of " + FP8_BLOCK + ", got " + hidden);
    }

    /** Normal mode, top-8, BF16 and FP8 allowed where hidden is a multiple of 128. */
    public static MoeConfig normal(int numExperts, int hidden, int maxTokensPerRank) {
        return new MoeConfig(
                Mode.NORMAL, numExperts, hidden, maxTokensPerRank, Math.min(8, numExperts), hidden % FP8_BLOCK == 0);
    }

    /** Low-latency mode, top-8, FP8 allowed where hidden is a multiple of 128. */
    public static MoeConfig lowLatency(int numExperts, int hidden, int maxTokensPerRank) {
        return new MoeConfig(
                Mode.LOW_LATENCY,
                numExperts,
                hidden,
                maxTokensPerRank,
                Math.min(8, numExperts),
                hidden % FP8_BLOCK == 0);
    }

    /** A copy with another top-k. */
    public MoeConfig withTopk(int k) {
        return new MoeConfig(mode, numExperts, hidden, maxTokensPerRank, k, useFp8);
    }

    /** A copy with FP8 allowed or not. */
    public MoeConfig withFp8(boolean fp8) {
        return new MoeConfig(mode, numExperts, hidden, maxTokensPerRank, numTopk, fp8);
    }

    /** Experts hosted by each rank of a job of {@code numRanks} ranks. */
    public int numLocalExperts(int numRanks) {
        checkRanks(numRanks);
        return numExperts / numRanks;
    }

    /**
     * Symmetric bytes one rank needs for this config in a job of {@code numRanks} ranks (DeepEP's
     * {@code get_*_size_hint}); the formulas are in the class comment.
     *
     * @throws IllegalArgumentException if {@code numRanks < 1} or does not divide {@code numExperts}
     */
    public long sizeHint(int numRanks) {
        checkRanks(numRanks);
        long r = numRanks, t = maxTokensPerRank, h = hidden, k = numTopk;
        if (mode == Mode.NORMAL) {
            long row = Math.addExact(2 * h, 12 * k);
            return Math.addExact(
                    HEADER_BYTES + Math.max(12 * t * k, 8 * r), Math.multiplyExact(Math.multiplyExact(t, row), r));
        }
        long fixed = HEADER_BYTES + SIGNAL_BYTES_PER_RANK * r;
        long l = numExperts / numRanks;
        long send = Math.multiplyExact(t, Math.addExact(2 * h, 8 * k));
        long recv = Math.multiplyExact(Math.multiplyExact(Math.multiplyExact(l, r), t), 2 * h);
        long combine = Math.multiplyExact(Math.multiplyExact(r, t), Math.addExact(8 * h, 32 * k));
        return Math.addExact(Math.addExact(fixed, Math.multiplyExact(2, Math.addExact(send, recv))), combine);
    }

    /** Private bytes of the combine outputs (see the class comment); independent of the job size. */
    public long outputBytes() {
        long t = maxTokensPerRank, h = hidden;
        return mode == Mode.NORMAL ? t * (2 * h + 4L * numTopk) : 2 * t * 2 * h;
    }

    private void checkRanks(int numRanks) {
        if (numRanks < 1) throw new IllegalArgumentException("numRanks must be >= 1, got " + numRanks);
        if (numExperts % numRanks != 0)
            throw new IllegalArgumentException(
                    "numExperts (" + numExperts + ") must be divisible by the number of ranks (" + numRanks + ")");
    }
}
