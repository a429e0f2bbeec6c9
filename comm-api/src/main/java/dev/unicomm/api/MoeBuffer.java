package dev.unicomm.api;

/**
 * Expert-parallel dispatch/combine with DeepEP's semantics (see {@code docs/spec/moe.md}):
 * rank {@code r} hosts experts {@code [r*L, (r+1)*L)}, {@code L = numExperts / size}. Every
 * dispatch and combine is <em>collective</em> over the communicator: every rank calls the same
 * operations in the same order. A buffer serves the mode it was configured for
 * ({@link MoeConfig#mode()}); calling the other mode's operations throws {@link IllegalStateException}.
 *
 * <p>Inputs: host tensors on host backends, device tensors on device backends. {@code topkIdx}
 * values lie in {@code [-1, numExperts)} ({@code -1}: unused slot) and a row names each expert at
 * most once; {@code T <= maxTokensPerRank}; shapes and dtypes must agree with the config. Bad
 * input throws {@link IllegalArgumentException} naming the argument.
 *
 * <p>Lifetimes (results are views into the buffer, as in DeepEP, so nothing is copied twice):
 * <ul>
 *   <li>Normal mode: a {@link Dispatched}'s tensors stay valid until the next dispatch or
 *       combine on this buffer; combine stages {@code y} in the receive area (no copy when
 *       {@code y} <em>is</em> the latest {@code recvX}, the usual in-place expert update). Its
 *       {@link MoeHandle} stays valid until the buffer is closed. A {@link Combined}'s tensors
 *       are the buffer's output memory, valid until the next combine.</li>
 *   <li>Low-latency mode: two result sets are alive at once (DeepEP's double buffer). A third
 *       low-latency dispatch invalidates the oldest: its handle and hook then throw
 *       {@link IllegalStateException}. A low-latency combine stages {@code y} in its dispatch's
 *       receive buffer (no copy when {@code y} is that {@code recvX}); its output stays valid until
 *       the next combine with a handle of the same generation slot (two dispatches later).</li>
 * </ul>
 */
public interface MoeBuffer extends AutoCloseable {

    /**
     * Symmetric heap bytes a buffer for {@code config} needs on each of {@code numRanks} ranks
     * (DeepEP's static {@code Buffer.get_*_size_hint}): size the heap so that this much is free.
     * Same as {@link MoeConfig#sizeHint(int)}; the formulas are in {@link MoeConfig}.
     */
    static long sizeHint(MoeConfig config, int numRanks) {
        if (config == null) throw new IllegalArgumentException("config must not be null");
        return config.sizeHint(numRanks);
    }

    /** The configuration this buffer was sized for. */
    MoeConfig config();

    /**
     * Bytes of symmetric and private memory this buffer holds on this rank; the portable
     * implementation holds exactly {@link MoeConfig#sizeHint(int)} + {@link MoeConfig#outputBytes()}.
     */
    long footprintBytes();

    /** Computes the layout of {@code topkIdx [T, K]} INT64 (values in [-1, numExperts)). Local, not collective. */
    MoeLayout layout(Tensor topkIdx);

    /**
     * Normal dispatch. {@code x} is {@code [T, H]} BF16, or FP8_E4M3 with {@code scales [T, H/128]} FP32
     * ({@code null} for BF16); {@code topkWeights [T, K]} FP32 or {@code null} (then the result's
     * {@code recvTopkWeights} is {@code null}); {@code layout} from {@link #layout} of the same
     * {@code topkIdx}; {@code expertAlignment >= 1} rounds {@code numRecvTokensPerExpert} up.
     */
    Dispatched dispatch(
            Tensor x, Tensor scales, Tensor topkIdx, Tensor topkWeights, MoeLayout layout, int expertAlignment);

    /** BF16 normal dispatch with expert alignment 1. */
    default Dispatched dispatch(Tensor x, Tensor topkIdx, Tensor topkWeights, MoeLayout layout) {
        return dispatch(x, null, topkIdx, topkWeights, layout, 1);
    }

    /**
     * Normal dispatch reusing a handle's routing (same tokens, new data): combine's backward.
     * {@code x} must have the handle's token count. The result carries no top-k ids or weights
     * ({@code null}) and the same handle.
     */
    Dispatched dispatch(Tensor x, Tensor scales, MoeHandle handle);

    /**
     * Normal combine: {@code y [N, H]} BF16 in recvX's order; optional {@code topkWeights [N, K]} FP32
     * ({@code null} for none), reduced the same way. Dispatch's backward.
     */
    Combined combine(Tensor y, MoeHandle handle, Tensor topkWeights);

    /** Combine without weights. */
    default Combined combine(Tensor y, MoeHandle handle) {
        return combine(y, handle, null);
    }

    /**
     * Low-latency dispatch of {@code x [T, H]} BF16, {@code T <= maxTokensPerRank}. Returns once
     * the sends are issued; the result's hook receives ({@link LowLatencyDispatched#hook()}).
     */
    LowLatencyDispatched lowLatencyDispatch(Tensor x, Tensor topkIdx, boolean useFp8);

    /**
     * Low-latency dispatch that, unless {@code returnRecvHook}, also receives before returning
     * (DeepEP's {@code return_recv_hook=False}).
     */
    default LowLatencyDispatched lowLatencyDispatch(Tensor x, Tensor topkIdx, boolean useFp8, boolean returnRecvHook) {
        LowLatencyDispatched d = lowLatencyDispatch(x, topkIdx, useFp8);
        if (!returnRecvHook) d.hook().await();
        return d;
    }

    /**
     * Low-latency weighted combine of {@code y [L, R*maxTokensPerRank, H]} BF16 in the handle's
     * layout; {@code topkIdx} and {@code topkWeights [T, K]} FP32 are the original tokens'. If the
     * dispatch's hook has not run yet, combine runs it first.
     */
    LowLatencyCombined lowLatencyCombine(Tensor y, Tensor topkIdx, Tensor topkWeights, MoeHandle handle);

    /** As {@link #lowLatencyCombine}, also receiving before returning unless {@code returnRecvHook}. */
    default LowLatencyCombined lowLatencyCombine(
            Tensor y, Tensor topkIdx, Tensor topkWeights, MoeHandle handle, boolean returnRecvHook) {
        LowLatencyCombined c = lowLatencyCombine(y, topkIdx, topkWeights, handle);
        if (!returnRecvHook) c.hook().await();
        return c;
    }

    /**
     * Stream-ordered low-latency dispatch, for device backends: the kernels are queued on
     * {@code stream} and the host waits for nothing, so the call can be captured in a CUDA graph and
     * replayed (the kernels keep their own sequence numbers on the device). Every tensor must be in
     * this PE's device memory. Stream-ordered operations use one receive generation: they alternate
     * (a dispatch, then its combine, then the next dispatch), their results sit at fixed addresses,
     * and a buffer that ran them cannot also run the host-sequenced low-latency operations. A bad
     * top-k id is skipped by the kernels and reported by the buffer's next call as
     * {@link IllegalArgumentException}.
     *
     * @throws UnsupportedOperationException where the implementation has no stream-ordered path
     */
    default LowLatencyDispatchedOnStream lowLatencyDispatch(Stream stream, Tensor x, Tensor topkIdx, boolean useFp8) {
        throw new UnsupportedOperationException(
                "this MoE implementation (" + getClass().getSimpleName()
                        + ") has no stream-ordered low-latency path; use lowLatencyDispatch(x, topkIdx, useFp8)");
    }

    /**
     * Stream-ordered low-latency combine of the latest stream-ordered dispatch (see
     * {@link #lowLatencyDispatch(Stream, Tensor, Tensor, boolean)}): returns {@code [T, H]} BF16 at a
     * fixed device address, valid in {@code stream}'s order until the next combine.
     *
     * @throws UnsupportedOperationException where the implementation has no stream-ordered path
     */
    default Tensor lowLatencyCombine(Stream stream, Tensor y, Tensor topkIdx, Tensor topkWeights, MoeHandle handle) {
        throw new UnsupportedOperationException(
                "this MoE implementation (" + getClass().getSimpleName()
                        + ") has no stream-ordered low-latency path; use lowLatencyCombine(y, topkIdx, topkWeights, handle)");
    }

    /**
     * The job ranks whose experts this buffer serves now, as an {@link ExpertMask} over
     * {@code jobSize} = the buffer's ranks (communicator rank = job rank). Starts all active; changes
     * by {@link #setActiveRanks(ExpertMask)} and, where the implementation detects failed peers
     * inside its calls (docs/moe.md, "Elastic GPU"), when a call finds a peer dead: compare it with
     * the set before the call to learn which ranks were newly found inactive.
     *
     * @throws UnsupportedCapabilityException where the backend lacks {@link Capability#MOE_ACTIVE_MASK}
     */
    default ExpertMask activeRanks() {
        throw new UnsupportedCapabilityException(
                getClass().getSimpleName(), Capability.MOE_ACTIVE_MASK, "MoeBuffer.activeRanks()");
    }

    /**
     * Sets the ranks whose experts this buffer serves (Mooncake EP's {@code update_ep_member}),
     * without reopening it. Later operations behave like a buffer opened with this mask
     * ({@code docs/spec/moe.md}, expert mask): entries naming an inactive rank's expert are dropped and
     * counted per token ({@code droppedPerToken}), nothing is sent to or awaited from inactive ranks,
     * combine sums live contributions only. Local to this rank, not collective: every active rank
     * must set the same mask between the same two operations (after a combine, before the next
     * dispatch); inactive ranks stop calling the buffer's operations. {@code mask.jobSize()} must equal
     * the buffer's ranks and this rank must be active. Ranks only leave: a mask that re-activates a rank
     * inactive on this buffer is refused (it missed operations; open a new buffer to use it again).
     *
     * @throws UnsupportedCapabilityException where the backend lacks {@link Capability#MOE_ACTIVE_MASK}
     * @throws IllegalArgumentException       if the mask does not fit the buffer, leaves this rank inactive or
     *                                        re-activates a rank
     */
    default void setActiveRanks(ExpertMask mask) {
        throw new UnsupportedCapabilityException(
                getClass().getSimpleName(), Capability.MOE_ACTIVE_MASK, "MoeBuffer.setActiveRanks(mask)");
    }

    /** Frees the buffer (collective). Handles and result views become invalid. */
    @Override
    void close();
}
