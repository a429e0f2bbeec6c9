package dev.unicomm.backend.nvshmem.internal.moe;

import dev.unicomm.api.MoeConfig;

/** What the CUDA MoE kernels support, and how many blocks they launch. */
public final class MoeKernelLimits {
    private MoeKernelLimits() {}

    /**
     * Up to {@value #MASK_RANKS} ranks the normal-mode kernels keep one 32-bit rank mask per token (ucn_moe_host.cuh's
     * MOE_MASK_RANKS); past it they scan positions per group of 32 ranks. Ranks: up to {@value #MAX_RANKS}, the largest
     * job whose index arithmetic is checked (MoeShapeLimitsTest); nothing in the kernels breaks before their 32-bit
     * indices ({@link #largestIntIndex}: R x (R + L) words of the count matrix) pass 2^31 (about 46,000 ranks), and
     * their shared memory grows by 8 bytes per rank only, but the count exchange grows as the square of the ranks.
     * Top-k: one warp lane per expert slot.
     */
    static final int MASK_RANKS = 32, MAX_RANKS = 2048, MAX_TOPK = 32;
    /** Rows move as 16-byte vectors: BF16 rows need hidden to be a multiple of 8 (FP8's 128 is MoeConfig's rule). */
    static final int HIDDEN_ALIGN = 8;

    /**
     * Why the kernels cannot serve {@code cfg} on {@code ranks} PEs of a device allowing {@code smem}
     * bytes of shared memory per block, or null when they can. Each message names the limit and why.
     */
    public static String unsupported(MoeConfig cfg, int ranks, long smem) {
        if (cfg.hidden() % HIDDEN_ALIGN != 0)
            return "the native MoE kernels need hidden to be a multiple of " + HIDDEN_ALIGN
                    + " (rows move as 16-byte vectors), got " + cfg.hidden();
        if (cfg.numTopk() > MAX_TOPK)
            return "the native MoE kernels support top-k up to " + MAX_TOPK + " (one warp lane per expert slot), got "
                    + cfg.numTopk();
        if (ranks > MAX_RANKS)
            return "the native MoE kernels support up to " + MAX_RANKS
                    + " PEs (the largest job their index arithmetic is checked for), got " + ranks;
        long layout = layoutSharedBytes(cfg, ranks);
        if (layout > smem)
            return "the native MoE layout kernel needs " + layout
                    + " bytes of shared memory per block (4 x (numExperts + PEs)), the device allows " + smem;
        if (cfg.mode() == MoeConfig.Mode.LOW_LATENCY) {
            long need = lowLatencySharedBytes(cfg);
            if (need > smem)
                return "the native low-latency MoE kernels keep a bitmap of numExperts x maxTokensPerRank bits in one block's shared memory: "
                        + need + " bytes for " + cfg.numExperts() + " experts and " + cfg.maxTokensPerRank()
                        + " tokens, the device allows " + smem
                        + " (at most " + smem / (4L * cfg.numExperts()) * 32 + " tokens per rank with "
                        + cfg.numExperts() + " experts)";
            return null;
        }
        long need = normalSharedBytes(cfg, ranks);
        if (need > smem)
            return "the native MoE routing kernel needs " + need + " bytes of shared memory per block for " + cfg
                    + " on " + ranks + " PEs ("
                    + (ranks <= MASK_RANKS
                            ? "4 x (numExperts + 34 x PEs + maxTokensPerRank): a rank mask per token"
                            : "4 x (numExperts + 2 x PEs + 1024)")
                    + "), the device allows " + smem;
        return null;
    }

    /** Dynamic shared memory of the layout kernel: per-expert and per-rank counters. */
    static long layoutSharedBytes(MoeConfig cfg, int ranks) {
        return 4L * (cfg.numExperts() + ranks);
    }

    /** Dynamic shared memory of the low-latency dispatch: a bitmap of tokens per expert (32-bit words). */
    static long lowLatencySharedBytes(MoeConfig cfg) {
        return 4L * cfg.numExperts() * ((cfg.maxTokensPerRank() + 31) / 32);
    }

    /**
     * Dynamic shared memory of the normal routing kernel (ucn_moe_host.cuh's moe_prep_smem): up to {@value #MASK_RANKS}
     * ranks per-expert counts, base and total per rank, a [32][R] scan and a mask per token; past it no masks and a [32][32] scan.
     */
    static long normalSharedBytes(MoeConfig cfg, int ranks) {
        return ranks <= MASK_RANKS
                ? 4L * (cfg.numExperts() + 34L * ranks + cfg.maxTokensPerRank())
                : 4L * (cfg.numExperts() + 2L * ranks + 32 * 32);
    }

    /**
     * The largest index the kernels compute in 32-bit ints for {@code cfg} on {@code ranks} PEs (the rest are 64-bit):
     * the normal count matrix's R x (R + L) words, the low-latency one's R x E and its T x K x (row share) work items;
     * positions (T x R), combine work items and every byte offset are 64-bit.
     */
    static long largestIntIndex(MoeConfig cfg, int ranks) {
        long r = ranks, l = cfg.numLocalExperts(ranks), t = cfg.maxTokensPerRank(), k = cfg.numTopk();
        long split = (cfg.hidden() + 255) / 256;
        return cfg.mode() == MoeConfig.Mode.NORMAL
                ? Math.max(r * (r + l), Math.max(t * k, r + cfg.numExperts()))
                : Math.max(r * cfg.numExperts(), t * k * split);
    }

    /**
     * Blocks per normal-mode MoE kernel: {@code configured} ({@code unicomm.nvshmem.moe.sms}) or this PE's share
     * of the device's {@code sms} less two, so that every block of every PE sharing the GPU is resident at once
     * (kernels wait for each other's blocks).
     */
    public static int blocks(String configured, int sharers, int sms) {
        if (configured == null || configured.isBlank()) return Math.max(1, sms / Math.max(1, sharers) - 2);
        return parse("unicomm.nvshmem.moe.sms", configured, sms);
    }

    /**
     * Blocks per low-latency MoE kernel: {@code configured} ({@code unicomm.nvshmem.moe.ll.sms}); by default the
     * whole GPU when this PE has it to itself (as DeepEP's low-latency kernels), else this PE's share less two.
     * Its own setting: small normal-mode budgets (24 SMs, to leave room for compute) would slow these kernels.
     */
    public static int lowLatencyBlocks(String configured, int sharers, int sms) {
        if (configured == null || configured.isBlank()) return sharers <= 1 ? sms : Math.max(1, sms / sharers - 2);
        return parse("unicomm.nvshmem.moe.ll.sms", configured, sms);
    }

    private static int parse(String property, String configured, int sms) {
        int n;
        try {
            n = Integer.parseInt(configured.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(property + " must be a number of SMs, got '" + configured + "'");
        }
        if (n < 1 || n > sms)
            throw new IllegalArgumentException(property + " must be in 1.." + sms + " (this GPU's SMs), got " + n);
        return n;
    }
}
