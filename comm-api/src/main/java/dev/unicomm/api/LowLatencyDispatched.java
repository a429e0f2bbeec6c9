package dev.unicomm.api;

/**
 * Result of a low-latency dispatch: fixed per-expert receive buffers (views into the buffer; see
 * {@link MoeBuffer} for the double-buffer rule).
 *
 * @param recvX      {@code [L, R*maxTokensPerRank, H]} BF16 or FP8_E4M3; for local expert {@code e}
 *                   slots {@code [0, recvCount[e])} hold the tokens that selected it, by source rank
 *                   then source token index; later slots are unspecified
 * @param recvScales {@code [L, R*maxTokensPerRank, H/128]} FP32 for FP8, else {@code null}
 * @param recvCount  per local expert, the valid slots; filled when the hook has run
 * @param handle     for the low-latency combine
 * @param hook       receives: until it has run, recvX and recvCount are not valid
 */
public record LowLatencyDispatched(Tensor recvX, Tensor recvScales, int[] recvCount, MoeHandle handle,
                                   ReceiveHook hook) {}
