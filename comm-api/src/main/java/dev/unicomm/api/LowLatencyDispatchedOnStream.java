package dev.unicomm.api;

/**
 * Result of a stream-ordered low-latency dispatch ({@link MoeBuffer#lowLatencyDispatch(Stream, Tensor, Tensor, boolean)}):
 * device tensors at fixed addresses, valid in the stream's order (after the dispatch, until the
 * buffer's next stream-ordered dispatch).
 *
 * @param recvX      {@code [L, R*maxTokensPerRank, H]} BF16 or FP8_E4M3, as in {@link LowLatencyDispatched}
 * @param recvScales {@code [L, R*maxTokensPerRank, H/128]} FP32 for FP8, else {@code null}
 * @param recvCount  {@code [L]} INT32 in device memory: valid slots per local expert
 * @param handle     for {@link MoeBuffer#lowLatencyCombine(Stream, Tensor, Tensor, Tensor, MoeHandle)}
 */
public record LowLatencyDispatchedOnStream(Tensor recvX, Tensor recvScales, Tensor recvCount, MoeHandle handle) {}
