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
 * @param droppedPerToken        per input token, how many of its top-k entries named an expert of an
 *                               inactive rank and were dropped (a buffer opened with an {@link ExpertMask});
 *                               a cached-handle dispatch reports its handle's; {@code null} without a mask
 */
public record Dispatched(
        Tensor recvX,
        Tensor recvScales,
        Tensor recvTopkIdx,
        Tensor recvTopkWeights,
        int[] numRecvTokensPerExpert,
        MoeHandle handle,
        int[] droppedPerToken) {

    /** A result without a mask ({@code droppedPerToken} {@code null}): what implementations return. */
    public Dispatched(
            Tensor recvX,
            Tensor recvScales,
            Tensor recvTopkIdx,
            Tensor recvTopkWeights,
            int[] numRecvTokensPerExpert,
            MoeHandle handle) {
        this(recvX, recvScales, recvTopkIdx, recvTopkWeights, numRecvTokensPerExpert, handle, null);
    }
}
