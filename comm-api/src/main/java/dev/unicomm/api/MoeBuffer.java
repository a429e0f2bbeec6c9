package dev.unicomm.api;

/**
 * Expert-parallel dispatch/combine with DeepEP's semantics (see {@code notes/moe-semantics.md}):
 * rank {@code r} hosts experts {@code [r*L, (r+1)*L)}, {@code L = numExperts / size}. Every
 * dispatch and combine is <em>collective</em> over the communicator. Results are host tensors for
 * host backends and device tensors on device backends; they stay valid until the buffer is closed
 * or, in low-latency mode, until two newer low-latency dispatches have been made (DeepEP's double
 * buffer; stale use throws {@link IllegalStateException}).
 */
public interface MoeBuffer extends AutoCloseable {

    /** The configuration this buffer was sized for. */
    MoeConfig config();

    /** Bytes of symmetric and private memory this buffer holds on this rank. */
    long footprintBytes();

    /** Computes the layout of {@code topkIdx [T, K]} INT64 (values in [-1, numExperts)). */
    MoeLayout layout(Tensor topkIdx);

    /**
     * Normal dispatch. {@code x} is {@code [T, H]} BF16, or FP8_E4M3 with {@code scales [T, H/128]} FP32
     * ({@code null} for BF16); {@code topkWeights [T, K]} FP32; {@code expertAlignment >= 1}.
     */
    Dispatched dispatch(Tensor x, Tensor scales, Tensor topkIdx, Tensor topkWeights, MoeLayout layout,
                        int expertAlignment);

    /** Normal dispatch reusing a handle's routing (same tokens, new data): combine's backward. */
    Dispatched dispatch(Tensor x, Tensor scales, MoeHandle handle);

    /**
     * Normal combine: {@code y [N, H]} BF16 in recvX's order; optional {@code topkWeights [N, K]} FP32
     * ({@code null} for none), reduced the same way.
     */
    Combined combine(Tensor y, MoeHandle handle, Tensor topkWeights);

    /** Low-latency dispatch of {@code x [T, H]} BF16, {@code T <= maxTokensPerRank}. */
    LowLatencyDispatched lowLatencyDispatch(Tensor x, Tensor topkIdx, boolean useFp8);

    /** Low-latency weighted combine of {@code y [L, R*maxTokensPerRank, H]} BF16. */
    LowLatencyCombined lowLatencyCombine(Tensor y, Tensor topkIdx, Tensor topkWeights, MoeHandle handle);

    /** Frees the buffer (collective). */
    @Override void close();
}
