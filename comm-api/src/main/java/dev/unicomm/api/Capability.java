package dev.unicomm.api;

/**
 * Stable vocabulary of what a backend can do. The conformance kit skips optional rules by
 * capability, never by the backend's class.
 */
public enum Capability {
    /** Blocking put/get into symmetric buffers of any PE. */
    RMA,
    /** Non-blocking put/get completed by {@link Rma#quiet()}. */
    NONBLOCKING_RMA,
    /** 64-bit remote atomics (fetch, set, add, fetch-add, swap, compare-and-swap). */
    ATOMICS,
    /** Put-with-signal and signal wait-until. */
    SIGNALS,
    /** Teams: strided and 2D splits, PE translation. */
    TEAMS,
    /** Direct load/store into peers' symmetric buffers ({@link SymmetricBuffer#peer(int)}). */
    DIRECT_PEER_ACCESS,
    /** Device streams: stream-ordered RMA through {@link Rma#on(Stream)}. */
    STREAMS,
    /** The symmetric heap lives in CUDA device memory. */
    DEVICE_MEMORY_CUDA,
    /** The symmetric heap lives in Ascend NPU device memory. */
    DEVICE_MEMORY_ASCEND,
    /** The backend brings its own collectives instead of the portable ones. */
    NATIVE_COLLECTIVES,
    /** The backend brings its own MoE dispatch/combine instead of the portable one. */
    NATIVE_MOE,
    /** Point-to-point transfer endpoints ({@link Communicator#endpoints()}). */
    P2P_ENDPOINTS,
    /** PEs may live in different OS processes (every real backend; a test double may not). */
    MULTI_PROCESS,
    /**
     * PEs may run on different hosts (a network between them: verbs, UCX, the vendor's transports).
     * A job whose ranks span hosts selects only such backends ({@link Communicator#topology()}).
     */
    MULTI_HOST,
    /**
     * Elastic mode ({@code unicomm.elastic=true} / {@code UNICOMM_ELASTIC=true} at connect): a rank whose
     * process dies is reported to every survivor as a {@link RankFailedException}, and
     * {@link Communicator#shrink()} opens a communicator over the survivors.
     */
    ELASTIC,
    /**
     * An open MoE buffer's active-rank set can be read and changed without reopening it
     * ({@link MoeBuffer#activeRanks()}, {@link MoeBuffer#setActiveRanks(ExpertMask)}): inactive ranks'
     * experts are skipped, top-k entries naming them dropped and counted per token, nobody sends to
     * or waits for them (Mooncake EP's {@code update_ep_member}, DeepEP's elastic status query).
     */
    MOE_ACTIVE_MASK
}
