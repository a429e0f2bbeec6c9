package dev.unicomm.api;

/**
 * Result of a normal dispatch on one rank (see {@code docs/spec/moe.md} for orderings).
 * The tensors are views into the buffer (see {@link MoeBuffer} for how long they stay valid).
 *
 * @param recvX                  {@code [N, H]} in x's dtype (BF16, or FP8_E4M3 with {@code recvScales})
 * @param recvScales             {@code [N, H/128]} FP32 for FP8 input, else {@code null}
 * @param recvTopkIdx            {@code [N, K]} INT64 local expert ids, -1 elsewhere; {@code null} for a cached-handle dispatch
 * @param recvTopkWeights        {@code [N, K]} FP32, 0 where {@code recvTopkIdx} is -1; {@code null} without weights
 * @param numRecvTokensPerExpert per local expert, the received tokens selecting it, rounded up to the expert alignment
 * @param handle                 for combine and cached dispatch
 */
public record Dispatched(Tensor recvX, Tensor recvScales, Tensor recvTopkIdx, Tensor recvTopkWeights,
                         int[] numRecvTokensPerExpert, MoeHandle handle) {}
