package dev.unicomm.internal.checked;

import static dev.unicomm.internal.checked.MoeChecks.tensor;

import dev.unicomm.api.Combined;
import dev.unicomm.api.DType;
import dev.unicomm.api.Dispatched;
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
import java.lang.foreign.ValueLayout;

/**
 * The MoE buffer users hold, whatever implementation is behind it (native or portable): checks
 * shapes, dtypes, token counts and top-k values against the config, owns handle identity and the
 * low-latency double-buffer rule, then delegates.
 */
public final class CheckedMoe implements MoeBuffer {
    private final MoeBuffer raw;
    private final MoeConfig config;
    private final int numRanks;
    private final int numLocalExperts;
    private final CheckedCommunicator comm; // null: no cross-rank agreement (unit tests of the checks)
    private long lowLatencyDispatches;
    private volatile boolean open = true;

    /** Wraps {@code raw}, which serves {@code numRanks} ranks. */
    public CheckedMoe(MoeBuffer raw, int numRanks) { this(raw, numRanks, null); }

    /** Wraps {@code raw}; every operation first agrees with the other ranks of {@code comm} on the call. */
    CheckedMoe(MoeBuffer raw, int numRanks, CheckedCommunicator comm) {
        this.comm = comm;
        this.raw = Checks.notNull("MoE buffer", raw);
        this.config = raw.config();
        this.numRanks = numRanks;
        this.numLocalExperts = config.numLocalExperts(numRanks);
    }

    private static MoeEvent begin() {
        MoeEvent e = new MoeEvent();
        e.begin();
        return e;
    }

    private void commit(MoeEvent e, String op, Tensor input) {
        e.end();
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
    public MoeBuffer unwrap() { return raw; }

    @Override public MoeConfig config() { return config; }

    @Override public long footprintBytes() { ensureOpen(); return raw.footprintBytes(); }

    @Override public MoeLayout layout(Tensor topkIdx) {
        ensureOpen();
        checkTopk("topkIdx", topkIdx, config.maxTokensPerRank());
        return raw.layout(topkIdx);
    }

    @Override public Dispatched dispatch(Tensor x, Tensor scales, Tensor topkIdx, Tensor topkWeights, MoeLayout layout,
                                         int expertAlignment) {
        return call(CallLedger.Op.DISPATCH, () -> {
            ensureMode(Mode.NORMAL, "dispatch");
            int t = checkTopk("topkIdx", topkIdx, config.maxTokensPerRank());
            checkX(x, scales, t);
            if (topkWeights != null) tensor("topkWeights", topkWeights, DType.FP32, t, config.numTopk());
            Checks.notNull("layout", layout);
            tensor("layout.tokensPerRank", layout.tokensPerRank(), DType.INT32, numRanks);
            tensor("layout.tokensPerExpert", layout.tokensPerExpert(), DType.INT32, config.numExperts());
            tensor("layout.isTokenInRank", layout.isTokenInRank(), DType.BOOL, t, numRanks);
            if (layout.tokensPerRank().memory().kind() == dev.unicomm.api.MemoryKind.HOST)
                MoeChecks.layoutMatches("layout", layout.tokensPerRank().segment().toArray(ValueLayout.JAVA_INT_UNALIGNED),
                        topkIdx, numRanks, numLocalExperts);
            if (expertAlignment < 1) throw new IllegalArgumentException("expertAlignment must be >= 1, got " + expertAlignment);
            return CallLedger.args(CallLedger.pack(x.dtype(), topkWeights != null), expertAlignment);
        }, () -> {
            MoeEvent e = begin();
            Dispatched d = wrap(raw.dispatch(x, scales, topkIdx, topkWeights, layout, expertAlignment));
            commit(e, "dispatch", x);
            return d;
        });
    }

    @Override public Dispatched dispatch(Tensor x, Tensor scales, MoeHandle handle) {
        Handle[] h = new Handle[1];
        return call(CallLedger.Op.CACHED_DISPATCH, () -> {
            ensureMode(Mode.NORMAL, "dispatch");
            h[0] = unwrap("handle", handle, Mode.NORMAL);
            checkX(x, scales, h[0].raw.numTokens());
            return CallLedger.args(CallLedger.pack(x.dtype()), 0);
        }, () -> {
            MoeEvent e = begin();
            Dispatched d = wrap(raw.dispatch(x, scales, h[0].raw));
            commit(e, "dispatch (cached handle)", x);
            return d;
        });
    }

    @Override public Combined combine(Tensor y, MoeHandle handle, Tensor topkWeights) {
        Handle[] h = new Handle[1];
        return call(CallLedger.Op.COMBINE, () -> {
            ensureMode(Mode.NORMAL, "combine");
            h[0] = unwrap("handle", handle, Mode.NORMAL);
            int n = h[0].raw.numRecvTokens();
            tensor("y", y, DType.BF16, n, config.hidden());
            if (topkWeights != null) tensor("topkWeights", topkWeights, DType.FP32, n, config.numTopk());
            return CallLedger.args(CallLedger.pack(topkWeights != null), 0);
        }, () -> {
            MoeEvent e = begin();
            Combined c = raw.combine(y, h[0].raw, topkWeights);
            commit(e, "combine", y);
            return c;
        });
    }

    @Override public LowLatencyDispatched lowLatencyDispatch(Tensor x, Tensor topkIdx, boolean useFp8) {
        LowLatencyDispatched d = call(CallLedger.Op.LL_DISPATCH, () -> {
            ensureMode(Mode.LOW_LATENCY, "lowLatencyDispatch");
            checkLowLatencyDispatch(x, topkIdx, useFp8);
            return CallLedger.args(CallLedger.pack(useFp8), 0);
        }, () -> {
            MoeEvent e = begin();
            LowLatencyDispatched r = raw.lowLatencyDispatch(x, topkIdx, useFp8);
            commit(e, useFp8 ? "lowLatencyDispatch fp8" : "lowLatencyDispatch", x);
            return r;
        });
        Handle h;
        synchronized (this) {
            h = new Handle(this, d.handle(), ++lowLatencyDispatches);
        }
        ReceiveHook hook = () -> {
            ensureFresh("hook", h);
            d.hook().await();
        };
        return new LowLatencyDispatched(d.recvX(), d.recvScales(), d.recvCount(), h, hook);
    }

    @Override public LowLatencyCombined lowLatencyCombine(Tensor y, Tensor topkIdx, Tensor topkWeights, MoeHandle handle) {
        Handle[] h = new Handle[1];
        return call(CallLedger.Op.LL_COMBINE, () -> {
            ensureMode(Mode.LOW_LATENCY, "lowLatencyCombine");
            h[0] = unwrap("handle", handle, Mode.LOW_LATENCY);
            checkLowLatencyCombine(y, topkIdx, topkWeights, h[0]);
            return CallLedger.none();
        }, () -> {
            MoeEvent e = begin();
            LowLatencyCombined c = raw.lowLatencyCombine(y, topkIdx, topkWeights, h[0].raw);
            commit(e, "lowLatencyCombine", y);
            return c;
        });
    }

    @Override public LowLatencyDispatchedOnStream lowLatencyDispatch(Stream stream, Tensor x, Tensor topkIdx, boolean useFp8) {
        return call(CallLedger.Op.LL_DISPATCH, () -> {
            ensureMode(Mode.LOW_LATENCY, "lowLatencyDispatch");
            Checks.notNull("stream", stream);
            checkLowLatencyDispatch(x, topkIdx, useFp8);
            return CallLedger.args(CallLedger.pack(useFp8), 1);
        }, () -> {
            MoeEvent e = begin();
            LowLatencyDispatchedOnStream d = raw.lowLatencyDispatch(stream, x, topkIdx, useFp8);
            commit(e, useFp8 ? "lowLatencyDispatch fp8 (stream)" : "lowLatencyDispatch (stream)", x);
            return new LowLatencyDispatchedOnStream(d.recvX(), d.recvScales(), d.recvCount(), new Handle(this, d.handle(), 0));
        });
    }

    @Override public Tensor lowLatencyCombine(Stream stream, Tensor y, Tensor topkIdx, Tensor topkWeights, MoeHandle handle) {
        Handle[] h = new Handle[1];
        return call(CallLedger.Op.LL_COMBINE, () -> {
            ensureMode(Mode.LOW_LATENCY, "lowLatencyCombine");
            Checks.notNull("stream", stream);
            h[0] = unwrap("handle", handle, Mode.LOW_LATENCY);
            checkLowLatencyCombine(y, topkIdx, topkWeights, h[0]);
            return CallLedger.args(0, 1);
        }, () -> {
            MoeEvent e = begin();
            Tensor out = raw.lowLatencyCombine(stream, y, topkIdx, topkWeights, h[0].raw);
            commit(e, "lowLatencyCombine (stream)", y);
            return out;
        });
    }

    @Override public void close() {
        synchronized (this) {
            if (!open) return;
            open = false;
        }
        raw.close();
    }

    @Override public String toString() { return "MoeBuffer[" + config + ", ranks=" + numRanks + (open ? "" : ", closed") + "]"; }

    // ---------------------------------------------------------------- checks

    private void ensureOpen() {
        if (!open) throw new IllegalStateException("MoE buffer " + config + " is closed");
    }

    private void ensureMode(Mode mode, String op) {
        ensureOpen();
        if (config.mode() != mode)
            throw new IllegalStateException(op + ": this buffer was configured for " + config.mode()
                    + " mode; open a " + mode + " buffer (MoeConfig." + (mode == Mode.NORMAL ? "normal" : "lowLatency") + "(...)) for it");
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
        tensor("x", x, DType.BF16, t, config.hidden());
        if (useFp8 && !config.useFp8())
            throw new IllegalArgumentException("useFp8: this buffer was configured without FP8 (MoeConfig.useFp8 = false)");
    }

    private void checkLowLatencyCombine(Tensor y, Tensor topkIdx, Tensor topkWeights, Handle h) {
        tensor("y", y, DType.BF16, numLocalExperts, (long) numRanks * config.maxTokensPerRank(), config.hidden());
        int t = h.raw.numTokens();
        checkTopk("topkIdx", topkIdx, config.maxTokensPerRank());
        tensor("topkIdx", topkIdx, DType.INT64, t, config.numTopk());
        tensor("topkWeights", topkWeights, DType.FP32, t, config.numTopk());
    }

    private void checkX(Tensor x, Tensor scales, int tokens) {
        Checks.notNull("x", x);
        MoeChecks.rows("x", x, config.maxTokensPerRank(), "maxTokensPerRank");
        if (x.dtype() == DType.FP8_E4M3) {
            if (!config.useFp8())
                throw new IllegalArgumentException("x is FP8_E4M3 but this buffer was configured without FP8 (MoeConfig.useFp8 = false)");
            tensor("x", x, DType.FP8_E4M3, tokens, config.hidden());
            tensor("scales", scales, DType.FP32, tokens, config.hidden() / MoeConfig.FP8_BLOCK);
        } else {
            tensor("x", x, DType.BF16, tokens, config.hidden());
            if (scales != null) throw new IllegalArgumentException("scales must be null for BF16 x (they belong to FP8_E4M3 x)");
        }
    }

    private Handle unwrap(String what, MoeHandle handle, Mode mode) {
        if (handle == null) throw new IllegalArgumentException(what + " must not be null");
        if (!(handle instanceof Handle h) || h.owner != this)
            throw new IllegalArgumentException(what + " was made by another MoE buffer; pass the handle of a dispatch on this one");
        if (h.raw.mode() != mode)
            throw new IllegalArgumentException(what + " comes from a " + h.raw.mode() + " dispatch; this operation needs a " + mode + " one");
        ensureFresh(what, h);
        return h;
    }

    private synchronized void ensureFresh(String what, Handle h) {
        ensureOpen();
        if (h.generation > 0 && lowLatencyDispatches - h.generation >= 2)
            throw new IllegalStateException(what + " is stale: it belongs to low-latency dispatch #" + h.generation
                    + " and dispatch #" + lowLatencyDispatches + " has reused its receive buffer (only the two latest are alive)");
    }

    private Dispatched wrap(Dispatched d) {
        MoeHandle h = d.handle() instanceof Handle ch && ch.owner == this ? ch : new Handle(this, d.handle(), 0);
        return new Dispatched(d.recvX(), d.recvScales(), d.recvTopkIdx(), d.recvTopkWeights(), d.numRecvTokensPerExpert(), h);
    }

    /** A handle stamped with its buffer and, for low-latency dispatches, its generation (1, 2, ...; 0 = normal). */
    private static final class Handle implements MoeHandle {
        final CheckedMoe owner;
        final MoeHandle raw;
        final long generation;

        Handle(CheckedMoe owner, MoeHandle raw, long generation) {
            this.owner = owner;
            this.raw = Checks.notNull("handle from the implementation", raw);
            this.generation = generation;
        }

        @Override public Mode mode() { return raw.mode(); }
        @Override public int numTokens() { return raw.numTokens(); }
        @Override public int numRecvTokens() { return raw.numRecvTokens(); }
        @Override public String toString() { return "MoeHandle[" + raw + (generation > 0 ? ", ll#" + generation : "") + "]"; }
    }
}
