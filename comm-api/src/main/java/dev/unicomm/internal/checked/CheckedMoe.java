package dev.unicomm.internal.checked;

import static dev.unicomm.internal.checked.MoeChecks.tensor;

import dev.unicomm.api.Capability;
import dev.unicomm.api.Combined;
import dev.unicomm.api.DType;
import dev.unicomm.api.Dispatched;
import dev.unicomm.api.ExpertMask;
import dev.unicomm.api.LowLatencyCombined;
import dev.unicomm.api.LowLatencyDispatched;
import dev.unicomm.api.LowLatencyDispatchedOnStream;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.MoeConfig.Mode;
import dev.unicomm.api.MoeHandle;
import dev.unicomm.api.MoeLayout;
import dev.unicomm.api.ReceiveHook;
import dev.unicomm.api.Stream;
import dev.unicomm.api.Tensor;
import dev.unicomm.api.UnsupportedCapabilityException;
import dev.unicomm.spi.AlgorithmCounts;
import java.lang.foreign.ValueLayout;

/**
 * The MoE buffer users hold, whatever implementation is behind it (native or portable): checks
 * shapes, dtypes, token counts and top-k values against the config, owns handle identity and the
 * low-latency double-buffer rule, then delegates. With an {@link ExpertMask} (semantics §7.7) the
 * implementation is a plain buffer over the active ranks' experts and this layer translates: users
 * see the original numbering, ids of inactive ranks' experts become unused slots underneath and are
 * reported per token.
 */
public final class CheckedMoe implements MoeBuffer {
    private final MoeBuffer raw;
    private final MoeConfig config;
    private final int numRanks;
    private final int numLocalExperts;
    private final int layoutRanks; // ranks a layout covers: the original job's with a mask
    private final MaskedExperts masked; // null: no mask
    private final CheckedCommunicator comm; // null: no cross-rank agreement (unit tests of the checks)
    private long lowLatencyDispatches;
    private volatile boolean open = true;
    /** Calls of an implementation that does not say which algorithm it ran. */
    private final AlgorithmTally nativeCalls = new AlgorithmTally();

    /** Wraps {@code raw}, which serves {@code numRanks} ranks. */
    public CheckedMoe(MoeBuffer raw, int numRanks) {
        this(raw, numRanks, null);
    }

    /** Wraps {@code raw}; every operation first agrees with the other ranks of {@code comm} on the call. */
    CheckedMoe(MoeBuffer raw, int numRanks, CheckedCommunicator comm) {
        this(raw, numRanks, comm, null, null);
    }

    /**
     * Wraps {@code raw}, a plain buffer over the active ranks' experts ({@link MaskedExperts#compactConfig}),
     * as a buffer of {@code config} (the original numbering) masked by {@code mask}; {@code mask}
     * {@code null}: no mask, {@code config} is {@code raw}'s.
     */
    CheckedMoe(MoeBuffer raw, int numRanks, CheckedCommunicator comm, MoeConfig config, ExpertMask mask) {
        this.comm = comm;
        this.raw = Checks.notNull("MoE buffer", raw);
        this.config = mask == null ? raw.config() : config;
        this.numRanks = numRanks;
        this.layoutRanks = mask == null ? numRanks : mask.jobSize();
        this.numLocalExperts = this.config.numLocalExperts(layoutRanks);
        this.masked = mask == null ? null : new MaskedExperts(mask, numLocalExperts);
        if (comm != null) comm.moeOpened(this);
    }

    /** This buffer's calls by {@code moe.operation/algorithm} (the implementation's names, or {@code native}). */
    java.util.Map<String, Long> algorithmCounts() {
        return AlgorithmTally.sum(
                raw instanceof AlgorithmCounts ac ? ac.algorithmCounts() : java.util.Map.of(), nativeCalls);
    }

    /** A buffer of {@code config} masked by {@code mask} over {@code raw} (unit tests of the translation). */
    static CheckedMoe masked(MoeBuffer raw, int numRanks, MoeConfig config, ExpertMask mask) {
        return new CheckedMoe(raw, numRanks, null, config, mask);
    }

    /** Runs the operation {@code body} inside a {@link MoeEvent} named {@code op} that records {@code input}'s size. */
    private <T> T timed(String op, Tensor input, java.util.function.Supplier<T> body) {
        MoeEvent e = new MoeEvent();
        e.begin();
        T result = body.get();
        commit(e, op, input);
        return result;
    }

    private void commit(MoeEvent e, String op, Tensor input) {
        e.end();
        if (!(raw instanceof AlgorithmCounts))
            nativeCalls.add(
                    "moe." + (op.startsWith("dispatch (cached") ? "cachedDispatch" : op.split(" ")[0]) + "/native");
        if (!e.shouldCommit()) return;
        e.operation = op;
        e.ranks = numRanks;
        e.experts = config.numExperts();
        e.hidden = config.hidden();
        e.tokens = input.shape()[0];
        e.bytes = input.byteSize();
        e.commit();
    }

    /**
     * One operation: this rank's checks, then agreement with every rank on the call (a rank whose
     * own arguments were bad fails every rank, so nobody's operation runs half-matched), then the call.
     */
    private <T> T call(CallLedger.Op op, CallLedger.Check check, java.util.function.Supplier<T> body) {
        if (comm == null) {
            check.run();
            return body.get();
        }
        CheckedTeam w = comm.worldTeam();
        return comm.calls().call(w.calls, w.raw, op, check, body);
    }

    /** The implementation behind this buffer. */
    public MoeBuffer unwrap() {
        return raw;
    }

    @Override
    public MoeConfig config() {
        return config;
    }

    @Override
    public long footprintBytes() {
        ensureOpen();
        return raw.footprintBytes();
    }

    /** With a mask: the layout of what is sent, in the original numbering (inactive ranks and their experts 0). */
    @Override
    public MoeLayout layout(Tensor topkIdx) {
        ensureOpen();
        checkTopk("topkIdx", topkIdx, config.maxTokensPerRank());
        if (masked == null) return raw.layout(topkIdx);
        masked.requireTranslatable("topkIdx", topkIdx);
        return masked.expand(raw.layout(masked.translate(topkIdx)), config.numExperts());
    }

    @Override
    public Dispatched dispatch(
            Tensor x, Tensor scales, Tensor topkIdx, Tensor topkWeights, MoeLayout layout, int expertAlignment) {
        Tensor[] inner = new Tensor[1]; // topkIdx as the implementation numbers it
        return call(
                CallLedger.Op.DISPATCH,
                () -> {
                    ensureMode(Mode.NORMAL, "dispatch");
                    int t = checkTopk("topkIdx", topkIdx, config.maxTokensPerRank());
                    checkX(x, scales, t);
                    if (topkWeights != null) tensor("topkWeights", topkWeights, DType.FP32, t, config.numTopk());
                    Checks.notNull("layout", layout);
                    tensor("layout.tokensPerRank", layout.tokensPerRank(), DType.INT32, layoutRanks);
                    tensor("layout.tokensPerExpert", layout.tokensPerExpert(), DType.INT32, config.numExperts());
                    tensor("layout.isTokenInRank", layout.isTokenInRank(), DType.BOOL, t, layoutRanks);
                    if (masked != null) {
                        masked.requireTranslatable("topkIdx", topkIdx);
                        masked.requireTranslatable("x", x);
                    }
                    inner[0] = masked == null ? topkIdx : masked.translate(topkIdx);
                    if (layout.tokensPerRank().memory().kind() == dev.unicomm.api.MemoryKind.HOST) {
                        int[] perRank = layout.tokensPerRank().segment().toArray(ValueLayout.JAVA_INT_UNALIGNED);
                        if (masked != null) perRank = masked.activeTokensPerRank("layout", perRank);
                        MoeChecks.layoutMatches("layout", perRank, inner[0], numRanks, numLocalExperts);
                    }
                    if (expertAlignment < 1)
                        throw new IllegalArgumentException("expertAlignment must be >= 1, got " + expertAlignment);
                    return CallLedger.args(CallLedger.pack(x.dtype(), topkWeights != null ? 1 : 0), expertAlignment);
                },
                () -> timed("dispatch", x, () -> {
                    // A masked layout is in the original numbering: the implementation gets its own of the translated
                    // ids.
                    MoeLayout innerLayout = masked == null || masked.identity() ? layout : raw.layout(inner[0]);
                    return wrap(
                            raw.dispatch(x, scales, inner[0], topkWeights, innerLayout, expertAlignment),
                            masked == null ? null : masked.dropped(topkIdx));
                }));
    }

    @Override
    public Dispatched dispatch(Tensor x, Tensor scales, MoeHandle handle) {
        Handle[] h = new Handle[1];
        return call(
                CallLedger.Op.CACHED_DISPATCH,
                () -> {
                    ensureMode(Mode.NORMAL, "dispatch");
                    h[0] = unwrap("handle", handle, Mode.NORMAL);
                    checkX(x, scales, h[0].raw.numTokens());
                    return CallLedger.args(CallLedger.pack(x.dtype()), 0);
                },
                () -> timed(
                        "dispatch (cached handle)", x, () -> wrap(raw.dispatch(x, scales, h[0].raw), h[0].dropped)));
    }

    @Override
    public Combined combine(Tensor y, MoeHandle handle, Tensor topkWeights) {
        Handle[] h = new Handle[1];
        return call(
                CallLedger.Op.COMBINE,
                () -> {
                    ensureMode(Mode.NORMAL, "combine");
                    h[0] = unwrap("handle", handle, Mode.NORMAL);
                    int n = h[0].raw.numRecvTokens();
                    tensor("y", y, DType.BF16, n, config.hidden());
                    if (topkWeights != null) tensor("topkWeights", topkWeights, DType.FP32, n, config.numTopk());
                    return CallLedger.args(topkWeights != null ? 1 : 0, 0);
                },
                () -> timed("combine", y, () -> raw.combine(y, h[0].raw, topkWeights)));
    }

    @Override
    public LowLatencyDispatched lowLatencyDispatch(Tensor x, Tensor topkIdx, boolean useFp8) {
        LowLatencyDispatched d = call(
                CallLedger.Op.LL_DISPATCH,
                () -> {
                    ensureMode(Mode.LOW_LATENCY, "lowLatencyDispatch");
                    checkLowLatencyDispatch(x, topkIdx, useFp8);
                    return CallLedger.args(useFp8 ? 1 : 0, 0);
                },
                () -> timed(
                        useFp8 ? "lowLatencyDispatch fp8" : "lowLatencyDispatch",
                        x,
                        () -> raw.lowLatencyDispatch(x, masked == null ? topkIdx : masked.translate(topkIdx), useFp8)));
        // Without a host-path mask, the implementation's drops (filled when its hook has run, like recvCount).
        int[] dropped = masked == null ? d.droppedPerToken() : masked.dropped(topkIdx);
        Handle h;
        synchronized (this) {
            h = new Handle(this, d.handle(), ++lowLatencyDispatches, dropped);
        }
        ReceiveHook hook = () -> {
            ensureFresh("hook", h);
            d.hook().await();
        };
        return new LowLatencyDispatched(
                d.recvX(),
                d.recvScales(),
                d.recvCount(),
                h,
                hook,
                dropped == null || masked == null ? dropped : dropped.clone());
    }

    @Override
    public LowLatencyCombined lowLatencyCombine(Tensor y, Tensor topkIdx, Tensor topkWeights, MoeHandle handle) {
        Handle[] h = new Handle[1];
        return call(
                CallLedger.Op.LL_COMBINE,
                () -> {
                    ensureMode(Mode.LOW_LATENCY, "lowLatencyCombine");
                    h[0] = unwrap("handle", handle, Mode.LOW_LATENCY);
                    checkLowLatencyCombine(y, topkIdx, topkWeights, h[0]);
                    return CallLedger.none();
                },
                // The same translation as the dispatch's: dropped entries' weights are not used.
                () -> timed(
                        "lowLatencyCombine",
                        y,
                        () -> raw.lowLatencyCombine(
                                y, masked == null ? topkIdx : masked.translate(topkIdx), topkWeights, h[0].raw)));
    }

    @Override
    public LowLatencyDispatchedOnStream lowLatencyDispatch(Stream stream, Tensor x, Tensor topkIdx, boolean useFp8) {
        return call(
                CallLedger.Op.LL_DISPATCH,
                () -> {
                    ensureMode(Mode.LOW_LATENCY, "lowLatencyDispatch");
                    Checks.notNull("stream", stream);
                    requireNoDropsOnStream("lowLatencyDispatch(stream, ...)");
                    checkLowLatencyDispatch(x, topkIdx, useFp8);
                    return CallLedger.args(useFp8 ? 1 : 0, 1);
                },
                () -> {
                    LowLatencyDispatchedOnStream d = timed(
                            useFp8 ? "lowLatencyDispatch fp8 (stream)" : "lowLatencyDispatch (stream)",
                            x,
                            () -> raw.lowLatencyDispatch(stream, x, topkIdx, useFp8));
                    return new LowLatencyDispatchedOnStream(
                            d.recvX(), d.recvScales(), d.recvCount(), new Handle(this, d.handle(), 0, null));
                });
    }

    @Override
    public Tensor lowLatencyCombine(Stream stream, Tensor y, Tensor topkIdx, Tensor topkWeights, MoeHandle handle) {
        Handle[] h = new Handle[1];
        return call(
                CallLedger.Op.LL_COMBINE,
                () -> {
                    ensureMode(Mode.LOW_LATENCY, "lowLatencyCombine");
                    Checks.notNull("stream", stream);
                    requireNoDropsOnStream("lowLatencyCombine(stream, ...)");
                    h[0] = unwrap("handle", handle, Mode.LOW_LATENCY);
                    checkLowLatencyCombine(y, topkIdx, topkWeights, h[0]);
                    return CallLedger.args(0, 1);
                },
                () -> timed(
                        "lowLatencyCombine (stream)",
                        y,
                        () -> raw.lowLatencyCombine(stream, y, topkIdx, topkWeights, h[0].raw)));
    }

    /**
     * A buffer opened with an {@link ExpertMask} reports that mask (fixed: its communicator is the
     * survivors'); a plain buffer asks the implementation where the backend has
     * {@link Capability#MOE_ACTIVE_MASK}, else every rank is active (nothing can change it).
     */
    @Override
    public ExpertMask activeRanks() {
        ensureOpen();
        if (masked != null) return masked.mask();
        if (!activeMaskSupported()) return ExpertMask.all(numRanks);
        ExpertMask m = raw.activeRanks();
        if (m == null || m.jobSize() != numRanks)
            throw new IllegalStateException(
                    "the MoE implementation reported active ranks " + m + " for a buffer of " + numRanks + " ranks");
        return m;
    }

    /** Checked here (size, this rank active), then set by the implementation; local, so no call agreement. */
    @Override
    public void setActiveRanks(ExpertMask mask) {
        ensureOpen();
        if (comm != null && !comm.has(Capability.MOE_ACTIVE_MASK))
            throw new UnsupportedCapabilityException(
                    comm.backend().name(), Capability.MOE_ACTIVE_MASK, "MoeBuffer.setActiveRanks(mask)");
        Checks.notNull("mask", mask);
        if (masked != null)
            throw new IllegalStateException(
                    "this buffer was opened with " + masked.mask()
                            + " over the survivors' communicator; its active set "
                            + "is fixed: open moe(config) on a communicator of the whole job to change active ranks on an open buffer");
        if (mask.jobSize() != numRanks)
            throw new IllegalArgumentException("mask " + mask + " is for a job of " + mask.jobSize()
                    + " ranks, but this buffer serves " + numRanks + " ranks (jobSize must equal the buffer's ranks)");
        if (comm != null && !mask.rankActive(comm.rank()))
            throw new IllegalArgumentException(
                    "mask " + mask + " leaves this rank (" + comm.rank() + ") inactive; only active ranks set the "
                            + "mask, an inactive rank stops calling the buffer's operations");
        refuseReactivation(mask);
        raw.setActiveRanks(mask);
    }

    /**
     * Ranks only leave an open buffer: one that left missed operations the others ran (their arrival
     * counts moved on without it), so the same message on every backend, before the implementation.
     */
    private void refuseReactivation(ExpertMask mask) {
        ExpertMask now;
        try {
            now = raw.activeRanks();
        } catch (UnsupportedCapabilityException e) {
            return; // the implementation has no active set: its setActiveRanks says so
        }
        if (now == null) return;
        for (int r = 0; r < numRanks; r++)
            if (mask.rankActive(r) && !now.rankActive(r))
                throw new IllegalArgumentException(
                        "mask " + mask + " re-activates rank " + r + ", which is inactive on this buffer (" + now
                                + "): ranks only leave an open buffer; open a new buffer on a communicator of the whole job to use rank "
                                + r + " again");
    }

    private boolean activeMaskSupported() {
        return comm == null || comm.has(Capability.MOE_ACTIVE_MASK);
    }

    @Override
    public void close() {
        synchronized (this) {
            if (!open) return;
            open = false;
        }
        if (comm != null) comm.moeClosed(this);
        if (comm == null || comm.isOpen()) {
            raw.close();
            return;
        }
        // The communicator went first (closed, or released by shrink()) and took the symmetric memory with it:
        // the implementation frees the rest (its local memory), then finds the communicator closed. Stay quiet.
        try {
            raw.close();
        } catch (IllegalStateException gone) {
            System.getLogger("dev.unicomm")
                    .log(System.Logger.Level.DEBUG, "MoE buffer closed after its communicator: " + gone.getMessage());
        }
    }

    @Override
    public String toString() {
        return "MoeBuffer[" + config + ", ranks=" + numRanks + (masked == null ? "" : ", " + masked.mask())
                + (open ? "" : ", closed") + "]";
    }

    // ---------------------------------------------------------------- checks

    private void ensureOpen() {
        if (!open) throw new IllegalStateException("MoE buffer " + config + " is closed");
    }

    private void ensureMode(Mode mode, String op) {
        ensureOpen();
        if (config.mode() != mode)
            throw new IllegalStateException(op + ": this buffer was configured for " + config.mode() + " mode; open a "
                    + mode + " buffer (MoeConfig." + (mode == Mode.NORMAL ? "normal" : "lowLatency") + "(...)) for it");
    }

    private int checkTopk(String what, Tensor topkIdx, int maxTokens) {
        tensor(what, topkIdx, DType.INT64, -1, config.numTopk());
        int t = MoeChecks.rows(what, topkIdx, maxTokens, "maxTokensPerRank");
        MoeChecks.topkValues(what, topkIdx, config.numExperts());
        return t;
    }

    private void checkLowLatencyDispatch(Tensor x, Tensor topkIdx, boolean useFp8) {
        int t = checkTopk("topkIdx", topkIdx, config.maxTokensPerRank());
        MoeChecks.rows("x", Checks.notNull("x", x), config.maxTokensPerRank(), "maxTokensPerRank");
        if (masked != null) {
            masked.requireTranslatable("topkIdx", topkIdx);
            masked.requireTranslatable("x", x);
        }
        tensor("x", x, DType.BF16, t, config.hidden());
        if (useFp8 && !config.useFp8())
            throw new IllegalArgumentException(
                    "useFp8: this buffer was configured without FP8 (MoeConfig.useFp8 = false)");
    }

    private void checkLowLatencyCombine(Tensor y, Tensor topkIdx, Tensor topkWeights, Handle h) {
        tensor("y", y, DType.BF16, numLocalExperts, (long) numRanks * config.maxTokensPerRank(), config.hidden());
        int t = h.raw.numTokens();
        checkTopk("topkIdx", topkIdx, config.maxTokensPerRank());
        tensor("topkIdx", topkIdx, DType.INT64, t, config.numTopk());
        if (masked != null) masked.requireTranslatable("topkIdx", topkIdx);
        tensor("topkWeights", topkWeights, DType.FP32, t, config.numTopk());
    }

    /** Stream-ordered operations run on device tensors, which a mask that drops experts cannot translate yet. */
    private void requireNoDropsOnStream(String op) {
        if (masked != null && !masked.identity())
            throw new UnsupportedOperationException(
                    op + ": " + masked.mask() + " drops experts and stream-ordered operations "
                            + "have no device-side id translation yet; use the host-sequenced lowLatencyDispatch/lowLatencyCombine with host tensors");
    }

    private void checkX(Tensor x, Tensor scales, int tokens) {
        Checks.notNull("x", x);
        MoeChecks.rows("x", x, config.maxTokensPerRank(), "maxTokensPerRank");
        if (x.dtype() == DType.FP8_E4M3) {
            if (!config.useFp8())
                throw new IllegalArgumentException(
                        "x is FP8_E4M3 but this buffer was configured without FP8 (MoeConfig.useFp8 = false)");
            tensor("x", x, DType.FP8_E4M3, tokens, config.hidden());
            tensor("scales", scales, DType.FP32, tokens, config.hidden() / MoeConfig.FP8_BLOCK);
        } else {
            tensor("x", x, DType.BF16, tokens, config.hidden());
            if (scales != null)
                throw new IllegalArgumentException("scales must be null for BF16 x (they belong to FP8_E4M3 x)");
        }
    }

    private Handle unwrap(String what, MoeHandle handle, Mode mode) {
        if (handle == null) throw new IllegalArgumentException(what + " must not be null");
        if (!(handle instanceof Handle h) || h.owner != this)
            throw new IllegalArgumentException(
                    what + " was made by another MoE buffer; pass the handle of a dispatch on this one");
        if (h.raw.mode() != mode)
            throw new IllegalArgumentException(
                    what + " comes from a " + h.raw.mode() + " dispatch; this operation needs a " + mode + " one");
        ensureFresh(what, h);
        return h;
    }

    private synchronized void ensureFresh(String what, Handle h) {
        ensureOpen();
        if (h.generation > 0 && lowLatencyDispatches - h.generation >= 2)
            throw new IllegalStateException(
                    what + " is stale: it belongs to low-latency dispatch #" + h.generation + " and dispatch #"
                            + lowLatencyDispatches + " has reused its receive buffer (only the two latest are alive)");
    }

    private Dispatched wrap(Dispatched d, int[] dropped) {
        if (dropped == null)
            dropped = d.droppedPerToken(); // the implementation's own (an active-rank mask on the device)
        MoeHandle h =
                d.handle() instanceof Handle ch && ch.owner == this ? ch : new Handle(this, d.handle(), 0, dropped);
        return new Dispatched(
                d.recvX(),
                d.recvScales(),
                d.recvTopkIdx(),
                d.recvTopkWeights(),
                d.numRecvTokensPerExpert(),
                h,
                dropped == null ? null : dropped.clone());
    }

    /**
     * A handle stamped with its buffer, for low-latency dispatches its generation (1, 2, ...; 0 = normal),
     * and with a mask the dispatch's drops per token (a cached-handle dispatch reports them again).
     */
    private static final class Handle implements MoeHandle {
        final CheckedMoe owner;
        final MoeHandle raw;
        final long generation;
        final int[] dropped;

        Handle(CheckedMoe owner, MoeHandle raw, long generation, int[] dropped) {
            this.owner = owner;
            this.raw = Checks.notNull("handle from the implementation", raw);
            this.generation = generation;
            this.dropped = dropped;
        }

        @Override
        public Mode mode() {
            return raw.mode();
        }

        @Override
        public int numTokens() {
            return raw.numTokens();
        }

        @Override
        public int numRecvTokens() {
            return raw.numRecvTokens();
        }

        @Override
        public String toString() {
            return "MoeHandle[" + raw + (generation > 0 ? ", ll#" + generation : "") + "]";
        }
    }
}
