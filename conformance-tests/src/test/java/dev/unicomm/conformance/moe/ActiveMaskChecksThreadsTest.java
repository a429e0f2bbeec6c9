package dev.unicomm.conformance.moe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.Combined;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.Dispatched;
import dev.unicomm.api.ExpertMask;
import dev.unicomm.api.LowLatencyCombined;
import dev.unicomm.api.LowLatencyDispatched;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.MoeHandle;
import dev.unicomm.api.MoeLayout;
import dev.unicomm.api.Tensor;
import dev.unicomm.conformance.ActiveMaskChecks;
import dev.unicomm.moe.reference.MoeConformance;
import dev.unicomm.moe.reference.MoeScenario;
import dev.unicomm.spi.BackendRegistry;
import dev.unicomm.testsupport.ThreadJob;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * The kit's active-mask checks ({@link ActiveMaskChecks}, rules {@code optional_moe_active_mask_*}) run on 3 shm PEs
 * as threads against a <b>test double</b>, because no backend built here declares {@code MOE_ACTIVE_MASK} (shm's
 * portable MoE cannot leave a rank out of an open buffer; nvshmem's kernels can, on a GPU). The double is a plain
 * portable buffer of the whole job whose survivors turn entries naming the inactive rank's experts into -1 and report
 * them per token, while the inactive rank's thread keeps the portable buffer's collective calls company with no
 * tokens (nobody routes to it, so it receives nothing): what a masking backend must deliver, built from parts the kit
 * already trusts. This exercises the checks' own logic (who calls what, the reference with the same drops, the bad
 * masks); whether nvshmem passes them is the GPU run's to show. Planted faults show the checks can fail.
 */
class ActiveMaskChecksThreadsTest {
    static final int RANKS = 3;

    static ThreadJob job(Duration timeout) {
        return ThreadJob.of(BackendRegistry.load().select("shm"), RANKS)
                .heapSize(32L << 20)
                .timeout(timeout);
    }

    /** Per rank, the double its opener made (the inactive rank's thread drives its portable buffer). */
    final Map<Integer, MaskingDouble> opened = new ConcurrentHashMap<>();

    ActiveMaskChecks checks(Communicator comm, Fault fault, Runnable whileInactive) {
        return new ActiveMaskChecks(
                comm,
                (c, cfg) -> {
                    MaskingDouble d = new MaskingDouble(c.moe(cfg), c.size(), c.rank(), fault);
                    opened.put(c.rank(), d);
                    return d;
                },
                whileInactive);
    }

    enum Fault {
        NONE,
        NO_DROP_COUNTS,
        ACCEPTS_ANY_MASK
    }

    @Test
    void normalModePassesAgainstACorrectDouble() {
        job(Duration.ofSeconds(30)).runOk(comm -> checks(comm, Fault.NONE, () -> {
                    Inactive in = new Inactive(opened.get(comm.rank()));
                    in.normal(true);
                    in.normal(true);
                    in.close();
                })
                .normal());
    }

    @Test
    void lowLatencyModePassesAgainstACorrectDouble() {
        job(Duration.ofSeconds(30)).runOk(comm -> checks(comm, Fault.NONE, () -> {
                    Inactive in = new Inactive(opened.get(comm.rank()));
                    in.lowLatency(false);
                    in.lowLatency(true);
                    in.close();
                })
                .lowLatency());
    }

    @Test
    void badMasksAreRefusedAndTheBufferStillWorksAgainstACorrectDouble() {
        job(Duration.ofSeconds(30)).runOk(comm -> checks(comm, Fault.NONE, () -> {
                    Inactive in = new Inactive(opened.get(comm.rank()));
                    in.normal(true);
                    in.close();
                })
                .badInput());
    }

    @Test
    void aDoubleThatDoesNotCountDropsFailsTheNormalCheck() {
        // The survivors fail at droppedPerToken, right after the dispatch; the inactive rank then waits for a combine
        // nobody calls and ends at the (short) timeout: both are failures of the rule.
        var out = job(Duration.ofSeconds(3)).<Boolean>run(comm -> {
            checks(comm, Fault.NO_DROP_COUNTS, () -> new Inactive(opened.get(comm.rank())).normal(true))
                    .normal();
            return true;
        });
        for (int r = 0; r < RANKS - 1; r++) {
            Throwable e = out.get(r).error();
            assertTrue(
                    e instanceof AssertionError && e.getMessage().contains("dispatch.droppedPerToken"),
                    "rank " + r + ": " + e);
        }
    }

    @Test
    void aDoubleThatAcceptsEveryMaskFailsTheBadInputCheck() {
        var out = job(Duration.ofSeconds(10)).<Boolean>run(comm -> {
            checks(comm, Fault.ACCEPTS_ANY_MASK, () -> {}).badInput();
            return true;
        });
        for (int r = 0; r < RANKS; r++) {
            Throwable e = out.get(r).error();
            assertTrue(e instanceof AssertionError && e.getMessage().contains("was accepted"), "rank " + r + ": " + e);
        }
    }

    @Test
    void onlyActiveRanksRunTheComparison() {
        job(Duration.ofSeconds(30)).runOk(comm -> {
            MoeConfig cfg = new MoeConfig(MoeConfig.Mode.NORMAL, 4 * RANKS, 96, 24, 4, false);
            MoeScenario sc = new MoeScenario(
                    "x", cfg, RANKS, 1, MoeScenario.Routing.UNIFORM, MoeScenario.unevenTokens(RANKS, 24, false));
            ExpertMask without = ActiveMaskChecks.withoutLast(RANKS);
            if (comm.rank() == ActiveMaskChecks.leaving(RANKS)) {
                IllegalArgumentException e = assertThrows(
                        IllegalArgumentException.class, () -> MoeConformance.onActiveRanks(comm, sc, without));
                assertTrue(e.getMessage().contains("inactive"), e.getMessage());
            }
            assertThrows(
                    IllegalArgumentException.class,
                    () -> MoeConformance.onActiveRanks(comm, sc, ExpertMask.all(RANKS + 1)));
        });
    }

    // ------------------------------------------------------------------------------- the double

    /**
     * A buffer of the whole job over the portable MoE that behaves like a masking backend on the active ranks: ids
     * naming an inactive rank's expert become -1 before the portable buffer sees them, and are counted per token.
     */
    static final class MaskingDouble implements MoeBuffer {
        final MoeBuffer inner;
        final int ranks, me, local;
        final Fault fault;
        ExpertMask mask;
        final Map<MoeHandle, int[]> drops = new IdentityHashMap<>();

        MaskingDouble(MoeBuffer inner, int ranks, int me, Fault fault) {
            this.inner = inner;
            this.ranks = ranks;
            this.me = me;
            this.fault = fault;
            this.local = inner.config().numExperts() / ranks;
            this.mask = ExpertMask.all(ranks);
        }

        @Override
        public ExpertMask activeRanks() {
            return mask;
        }

        @Override
        public void setActiveRanks(ExpertMask m) {
            if (fault != Fault.ACCEPTS_ANY_MASK) {
                if (m.jobSize() != ranks)
                    throw new IllegalArgumentException("mask " + m + " is for a job of " + m.jobSize() + " ranks");
                if (!m.rankActive(me))
                    throw new IllegalArgumentException("mask " + m + " leaves this rank (" + me + ") inactive");
                for (int r = 0; r < ranks; r++)
                    if (m.rankActive(r) && !mask.rankActive(r))
                        throw new IllegalArgumentException("mask " + m + " re-activates rank " + r);
            }
            mask = m;
        }

        private Tensor dropped(Tensor idx) {
            long[] ids = idx.segment().toArray(ValueLayout.JAVA_LONG_UNALIGNED);
            for (int i = 0; i < ids.length; i++)
                if (ids[i] >= 0 && !mask.rankActive((int) (ids[i] / local))) ids[i] = -1;
            Tensor t = Tensor.allocate(Arena.ofAuto(), DType.INT64, idx.shape());
            java.lang.foreign.MemorySegment.copy(ids, 0, t.segment(), ValueLayout.JAVA_LONG_UNALIGNED, 0, ids.length);
            return t;
        }

        private int[] perToken(Tensor idx) {
            long[] ids = idx.segment().toArray(ValueLayout.JAVA_LONG_UNALIGNED);
            int k = inner.config().numTopk();
            int[] d = new int[ids.length / k];
            if (fault == Fault.NO_DROP_COUNTS) return d;
            for (int i = 0; i < ids.length; i++)
                if (ids[i] >= 0 && !mask.rankActive((int) (ids[i] / local))) d[i / k]++;
            return d;
        }

        @Override
        public MoeConfig config() {
            return inner.config();
        }

        @Override
        public long footprintBytes() {
            return inner.footprintBytes();
        }

        @Override
        public MoeLayout layout(Tensor topkIdx) {
            return inner.layout(dropped(topkIdx));
        }

        @Override
        public Dispatched dispatch(
                Tensor x, Tensor scales, Tensor topkIdx, Tensor topkWeights, MoeLayout layout, int alignment) {
            Dispatched d = inner.dispatch(x, scales, dropped(topkIdx), topkWeights, layout, alignment);
            int[] per = perToken(topkIdx);
            drops.put(d.handle(), per);
            return new Dispatched(
                    d.recvX(),
                    d.recvScales(),
                    d.recvTopkIdx(),
                    d.recvTopkWeights(),
                    d.numRecvTokensPerExpert(),
                    d.handle(),
                    per);
        }

        @Override
        public Dispatched dispatch(Tensor x, Tensor scales, MoeHandle handle) {
            Dispatched d = inner.dispatch(x, scales, handle);
            return new Dispatched(
                    d.recvX(),
                    d.recvScales(),
                    d.recvTopkIdx(),
                    d.recvTopkWeights(),
                    d.numRecvTokensPerExpert(),
                    d.handle(),
                    drops.get(handle));
        }

        @Override
        public Combined combine(Tensor y, MoeHandle handle, Tensor topkWeights) {
            return inner.combine(y, handle, topkWeights);
        }

        @Override
        public LowLatencyDispatched lowLatencyDispatch(Tensor x, Tensor topkIdx, boolean useFp8) {
            LowLatencyDispatched d = inner.lowLatencyDispatch(x, dropped(topkIdx), useFp8);
            return new LowLatencyDispatched(
                    d.recvX(), d.recvScales(), d.recvCount(), d.handle(), d.hook(), perToken(topkIdx));
        }

        @Override
        public LowLatencyCombined lowLatencyCombine(Tensor y, Tensor topkIdx, Tensor topkWeights, MoeHandle handle) {
            return inner.lowLatencyCombine(y, dropped(topkIdx), topkWeights, handle);
        }

        @Override
        public void close() {
            inner.close();
        }
    }

    /**
     * The inactive rank's side of the double: the portable buffer is collective over the whole job, so this thread
     * makes the same calls as the survivors' check (MoeConformance's sequence) with no tokens of its own.
     */
    static final class Inactive {
        final MoeBuffer moe;
        final MoeConfig cfg;
        final Arena arena = Arena.ofAuto();

        Inactive(MaskingDouble d) {
            this.moe = d.inner;
            this.cfg = d.inner.config();
        }

        Tensor empty(DType t, long... shape) {
            return Tensor.allocate(arena, t, shape);
        }

        /** Dispatch, combine of recvX with weights (BF16), combine of separate data, cached-handle dispatch. */
        void normal(boolean bf16) {
            Tensor x = empty(DType.BF16, 0, cfg.hidden()),
                    idx = empty(DType.INT64, 0, cfg.numTopk()),
                    w = empty(DType.FP32, 0, cfg.numTopk());
            Dispatched d = moe.dispatch(x, null, idx, w, moe.layout(idx), 4);
            assertEquals(0, d.recvX().dim(0), "nobody sends to the inactive rank");
            if (bf16) moe.combine(d.recvX(), d.handle(), d.recvTopkWeights());
            moe.combine(empty(DType.BF16, 0, cfg.hidden()), d.handle(), null);
            moe.dispatch(x, null, d.handle());
        }

        /** MoeConformance's low-latency sequence: dispatch+combine, (BF16) again in place, then the double-buffer rule. */
        void lowLatency(boolean fp8) {
            int ranks = RANKS, local = cfg.numExperts() / ranks;
            Tensor x = empty(DType.BF16, 0, cfg.hidden()),
                    idx = empty(DType.INT64, 0, cfg.numTopk()),
                    w = empty(DType.FP32, 0, cfg.numTopk());
            Tensor y = empty(DType.BF16, local, (long) ranks * cfg.maxTokensPerRank(), cfg.hidden());
            LowLatencyDispatched d = moe.lowLatencyDispatch(x, idx, fp8);
            d.hook().await();
            for (int c : d.recvCount()) assertEquals(0, c, "nobody sends to the inactive rank");
            moe.lowLatencyCombine(y, idx, w, d.handle()).hook().await();
            if (!fp8) {
                LowLatencyDispatched d2 = moe.lowLatencyDispatch(x, idx, false);
                d2.hook().await();
                moe.lowLatencyCombine(d2.recvX(), idx, w, d2.handle()).hook().await();
            }
            LowLatencyDispatched a = moe.lowLatencyDispatch(x, idx, fp8);
            LowLatencyDispatched b = moe.lowLatencyDispatch(x, idx, fp8);
            b.hook().await();
            LowLatencyDispatched third = moe.lowLatencyDispatch(x, idx, fp8);
            assertThrows(IllegalStateException.class, () -> moe.lowLatencyCombine(y, idx, w, a.handle()));
            third.hook().await();
            moe.lowLatencyCombine(y, idx, w, third.handle()).hook().await();
        }

        void close() {
            moe.close();
        }
    }
}
