package dev.unicomm.benchmarks.bench;

/**
 * DeepEP V1's buffer sizes for a shape, as the comparison for {@link dev.unicomm.api.MoeConfig#sizeHint}: what its
 * size-hint functions return, derived from its public source (csrc/config.hpp, deep_ep/buffer.py; facts, not its code).
 * Low-latency: {@code get_low_latency_rdma_size_hint}: two send buffers of {@code max(T x msg, E x T x combine msg)},
 * two receive buffers of {@code E x T x max(msg, combine msg)} and two signal areas, where a dispatch message is 16 bytes
 * + max(2H, H + 4 x H/128) and a combine message 2H + 4 x H/128. Normal mode on one node (up to 8 ranks): the NVLink
 * buffer {@code Config.get_nvl_buffer_size_hint(2H, R)} of its default configs (20 SMs, so 10 channels; dispatch
 * chunks of 256 received tokens, combine 256, or 64 at 8 ranks), which holds per channel and rank a ring of chunk
 * tokens (row, 8 bytes of source meta, 128 top-k ids and weights, 128 scales), independent of the tokens per rank.
 */
final class DeepEpSizeHint {
    private DeepEpSizeHint() {}

    private static final long ALIGN = 128;

    /** {@code get_low_latency_rdma_size_hint(T, H, R, E)}. */
    static long lowLatency(int tokens, int hidden, int ranks, int experts) {
        long t = tokens, h = hidden, e = experts, scales = h / 128;
        long dispatchMsg = 16 + Math.max(2 * h, h + 4 * scales), combineMsg = 4 * scales + 2 * h;
        long send = Math.max(t * dispatchMsg, e * t * combineMsg);
        long recv = Math.max(e * t * dispatchMsg, e * t * combineMsg);
        long signal = align(e * 8 + (e / ranks) * 4);
        long total = 2 * send + 2 * recv + 2 * signal;
        return (total + ALIGN) / ALIGN * ALIGN;
    }

    /** Normal mode within one node (up to 8 ranks): the NVLink buffer the default dispatch and combine configs need; -1 past 8 ranks. */
    static long normal(int hidden, int ranks) {
        if (ranks > 8) return -1;
        long hiddenBytes = 2L * hidden;
        int dispatchChunk = 256, combineChunk = ranks == 8 ? 64 : 256;
        return Math.max(nvl(hiddenBytes, ranks, dispatchChunk), nvl(hiddenBytes, ranks, combineChunk));
    }

    private static long nvl(long hiddenBytes, int ranks, int recvChunk) {
        long channels = 10, slots = channels * ranks * recvChunk;
        long bytes = channels * ranks * (2 + 3) * 4
                + slots * hiddenBytes
                + slots * 8
                + slots * 128 * 8
                + slots * 128 * 4
                + slots * 128 * 4;
        return align(bytes);
    }

    private static long align(long v) {
        return (v + ALIGN - 1) / ALIGN * ALIGN;
    }
}
