package dev.unicomm.backend.nvshmem.internal.moe;

import dev.unicomm.api.MoeConfig;

/** What the CUDA MoE kernels support, and how many blocks they launch. */
public final class MoeKernelLimits {
    private MoeKernelLimits() {}

    /** Ranks fit one 32-bit mask and top-k slots one warp. */
    static final int MAX_RANKS = 32, MAX_TOPK = 32;

    /**
     * Why the kernels cannot serve {@code cfg} on {@code ranks} PEs of a device allowing {@code smem}
     * bytes of shared memory per block, or null when they can.
     */
    public static String unsupported(MoeConfig cfg, int ranks, long smem) {
        if (cfg.hidden() % 8 != 0) return "the native MoE kernels need hidden to be a multiple of 8 (16-byte rows), got " + cfg.hidden();
        if (cfg.numTopk() > MAX_TOPK) return "the native MoE kernels support top-k up to " + MAX_TOPK + ", got " + cfg.numTopk();
        if (ranks > MAX_RANKS) return "the native MoE kernels support up to " + MAX_RANKS + " PEs, got " + ranks;
        long need = cfg.mode() == MoeConfig.Mode.LOW_LATENCY
                ? 4L * cfg.numExperts() * ((cfg.maxTokensPerRank() + 31) / 32)
                : 4L * (cfg.numExperts() + 34L * ranks + cfg.maxTokensPerRank());
        if (need > smem)
            return "the native MoE kernels need " + need + " bytes of shared memory per block for " + cfg
                    + " (low-latency: numExperts x maxTokensPerRank / 8; normal: 4 x (numExperts + maxTokensPerRank) + a little), the device allows " + smem;
        return null;
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
