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
 * @param droppedPerToken per input token, how many of its top-k entries named an expert of an inactive
 *                   rank and were dropped (a buffer opened with an {@link ExpertMask}); {@code null} without a mask
 */
public record LowLatencyDispatched(
        Tensor recvX, Tensor recvScales, int[] recvCount, MoeHandle handle, ReceiveHook hook, int[] droppedPerToken) {

    /** A result without a mask ({@code droppedPerToken} {@code null}): what implementations return. */
    public LowLatencyDispatched(Tensor recvX, Tensor recvScales, int[] recvCount, MoeHandle handle, ReceiveHook hook) {
        this(recvX, recvScales, recvCount, handle, hook, null);
    }
}
