package dev.unicomm.api;

/**
 * Result of a low-latency dispatch: fixed per-expert receive buffers.
 *
 * @param recvX      {@code [L, R*maxTokensPerRank, H]} BF16 or FP8_E4M3
 * @param recvScales {@code [L, R*maxTokensPerRank, H/128]} FP32 for FP8, else {@code null}
 * @param recvCount  per local expert, the valid slots
 * @param handle     for the low-latency combine
 * @param hook       waits for the data to arrive; until it has run, recvX and recvCount are not valid
 */
public record LowLatencyDispatched(Tensor recvX, Tensor recvScales, int[] recvCount, MoeHandle handle,
                                   ReceiveHook hook) {}
