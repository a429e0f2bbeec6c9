package dev.unicomm.conformance;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.Capability;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.LowLatencyDispatched;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.Tensor;
import dev.unicomm.api.UnsupportedCapabilityException;
import dev.unicomm.moe.reference.KitTensors;
import dev.unicomm.moe.reference.MoeConformance;
import dev.unicomm.moe.reference.MoeScenario;
import dev.unicomm.moe.reference.MoeScenario.Routing;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;
import org.opentest4j.AssertionFailedError;

/**
 * MoE dispatch/combine against the plain-Java reference ({@code dev.unicomm.moe.reference}, module moe-reference) on
 * random routings: tokens whose experts all live on one rank, experts with zero tokens, -1 slots,
 * uneven token counts per rank (one rank with none), hidden sizes not a multiple of 128 where
 * BF16 allows it. Data movement must be bit-exact, sums within one bf16 ulp, FP8 within e4m3
 * rounding. A backend without native MoE runs the portable one (module {@code collectives}, which
 * the kit brings); a backend with neither fails these required rules, naming the fix.
 */
public abstract class MoeSuite extends KitSuite {

    static MoeBuffer open(Communicator c, MoeConfig cfg) {
        try {
            return c.moe(cfg);
        } catch (UnsupportedCapabilityException e) {
            // required rules: a backend without MoE fails them, it does not skip them
            throw new AssertionFailedError(
                    "no MoE implementation for backend '" + c.backend().name() + "': " + e.getMessage()
                            + ". Fix: declare NATIVE_MOE and provide one, or declare RMA, SIGNALS and ATOMICS and put "
                            + "dev.unicomm:collectives (the portable MoE) on the class path",
                    e);
        }
    }

    static MoeScenario scenario(Communicator c, MoeConfig cfg, Routing routing, long seed, boolean emptyRank) {
        return new MoeScenario(
                routing.name().toLowerCase(),
                cfg,
                c.size(),
                seed,
                routing,
                MoeScenario.unevenTokens(c.size(), cfg.maxTokensPerRank(), emptyRank));
    }

    /** Normal mode, BF16 at a hidden size that is not a multiple of 128, for one routing. */
    static void normalBf16(Pe pe, Routing routing, long seed) {
        Communicator c = pe.comm();
        MoeConfig cfg = new MoeConfig(MoeConfig.Mode.NORMAL, 4 * c.size(), 96, 24, 4, false);
        try (MoeBuffer moe = open(c, cfg)) {
            new MoeConformance(c, scenario(c, cfg, routing, seed, seed % 2 == 0)).checkNormal(moe, false);
        }
    }

    /**
     * Low-latency mode (BF16 and FP8) for one routing. With every expert of a token on one rank the
     * token takes 10 of that rank's 12 experts: more rows of one token on one rank than the 8 that
     * native combines sum at once.
     */
    static void lowLatency(Pe pe, Routing routing, long seed) {
        Communicator c = pe.comm();
        boolean many = routing == Routing.ONE_RANK;
        MoeConfig cfg =
                new MoeConfig(MoeConfig.Mode.LOW_LATENCY, (many ? 12 : 4) * c.size(), 256, 6, many ? 10 : 3, true);
        try (MoeBuffer moe = open(c, cfg)) {
            new MoeConformance(c, scenario(c, cfg, routing, seed, seed % 2 == 1)).checkLowLatency(moe, false);
            new MoeConformance(c, scenario(c, cfg, routing, seed + 1, seed % 2 == 0)).checkLowLatency(moe, true);
        }
    }

    /** Verifies §9.3: normal dispatch and combine match the reference (order, local ids, unweighted sum) / if it fails, look at the received order and the handle's route back. */
    @Verifies("9.3")
    @Test
    void required_moe_normal_uniform_routing() {
        spmd(pe -> normalBf16(pe, Routing.UNIFORM, 1));
    }

    /** Verifies §9.3: normal dispatch and combine match the reference (order, local ids, unweighted sum) / if it fails, look at the received order and the handle's route back. */
    @Verifies("9.3")
    @Test
    void required_moe_normal_tokens_on_one_rank() {
        spmd(pe -> normalBf16(pe, Routing.ONE_RANK, 2));
    }

    /** Verifies §9.3: normal dispatch and combine match the reference (order, local ids, unweighted sum) / if it fails, look at the received order and the handle's route back. */
    @Verifies("9.3")
    @Test
    void required_moe_normal_experts_without_tokens() {
        spmd(pe -> normalBf16(pe, Routing.HALF_EXPERTS_IDLE, 3));
    }

    /** Verifies §9.3: normal dispatch and combine match the reference (order, local ids, unweighted sum) / if it fails, look at the received order and the handle's route back. */
    @Verifies("9.3")
    @Test
    void required_moe_normal_unused_slots_and_uneven_tokens() {
        spmd(pe -> normalBf16(pe, Routing.UNUSED_SLOTS, 4));
    }

    /** Verifies §9.2: normal dispatch carries FP8 data and scales bit-exactly and combines / if it fails, look at the FP8 tuple path of dispatch. */
    @Verifies("9.2")
    @Test
    void required_moe_normal_fp8() {
        spmd(pe -> {
            Communicator c = pe.comm();
            MoeConfig cfg = new MoeConfig(MoeConfig.Mode.NORMAL, 4 * c.size(), 256, 16, 4, true);
            try (MoeBuffer moe = open(c, cfg)) {
                new MoeConformance(c, scenario(c, cfg, Routing.UNUSED_SLOTS, 5, true)).checkNormal(moe, true);
            }
        });
    }

    /** Verifies §9.7: low-latency dispatch/combine match the reference (slots, FP8, weighted sum) / if it fails, look at slot assignment per local expert and the weighted combine. */
    @Verifies("9.7")
    @Test
    void required_moe_low_latency_uniform_routing() {
        spmd(pe -> lowLatency(pe, Routing.UNIFORM, 11));
    }

    /** Verifies §9.7: low-latency dispatch/combine match the reference (slots, FP8, weighted sum) / if it fails, look at slot assignment per local expert and the weighted combine. */
    @Verifies("9.7")
    @Test
    void required_moe_low_latency_tokens_on_one_rank() {
        spmd(pe -> lowLatency(pe, Routing.ONE_RANK, 13));
    }

    /** Verifies §9.7: low-latency dispatch/combine match the reference (slots, FP8, weighted sum) / if it fails, look at slot assignment per local expert and the weighted combine. */
    @Verifies("9.7")
    @Test
    void required_moe_low_latency_experts_without_tokens_and_unused_slots() {
        spmd(pe -> {
            lowLatency(pe, Routing.HALF_EXPERTS_IDLE, 15);
            lowLatency(pe, Routing.UNUSED_SLOTS, 17);
        });
    }

    /**
     * Verifies §9.3 and §9.7 at the edges of the shapes current models use (issue 51): top-1 and top-32, the largest
     * hidden size (8192) and the largest expert count (2048, or the largest multiple of the ranks below it), each in
     * normal and low-latency mode with few tokens / if it fails, look at per-token loops bounded by a fixed top-k,
     * per-expert arrays sized for fewer experts, or row offsets computed in 32 bits.
     */
    @Verifies("9.3")
    @Test
    void required_moe_edge_shapes() {
        spmd(pe -> {
            Communicator c = pe.comm();
            int n = c.size(), most = 2048 / n * n;
            for (int k : new int[] {1, 32}) {
                int e = n * Math.max(4, (k + n - 1) / n);
                edge(c, new MoeConfig(MoeConfig.Mode.NORMAL, e, 1024, 8, k, false), 21 + k);
                edge(c, new MoeConfig(MoeConfig.Mode.LOW_LATENCY, e, 1024, 4, k, true), 22 + k);
            }
            edge(c, new MoeConfig(MoeConfig.Mode.NORMAL, 4 * n, 8192, 4, 4, true), 25);
            edge(c, new MoeConfig(MoeConfig.Mode.LOW_LATENCY, 4 * n, 8192, 2, 4, true), 26);
            edge(c, new MoeConfig(MoeConfig.Mode.NORMAL, most, 1024, 16, 8, false), 27);
            edge(c, new MoeConfig(MoeConfig.Mode.LOW_LATENCY, most, 128, 2, 8, true), 28);
        });
    }

    /** One edge shape, its data FP8 where the config allows it, else BF16. */
    private static void edge(Communicator c, MoeConfig cfg, long seed) {
        try (MoeBuffer moe = open(c, cfg)) {
            MoeConformance check = new MoeConformance(c, scenario(c, cfg, Routing.UNUSED_SLOTS, seed, false));
            if (cfg.mode() == MoeConfig.Mode.NORMAL) check.checkNormal(moe, cfg.useFp8());
            else check.checkLowLatency(moe, cfg.useFp8());
        }
    }

    /** Verifies §9.13: bad MoE input is rejected by name, stale handles detected / if it fails, look at MoE argument checks and the double-buffer bookkeeping. */
    @Verifies("9.13")
    @Test
    void required_moe_bad_input_is_rejected_by_name() {
        spmd(pe -> {
            Communicator c = pe.comm();
            int e = 4 * c.size();
            MoeConfig cfg = new MoeConfig(MoeConfig.Mode.LOW_LATENCY, e, 128, 4, 2, false);
            try (Arena a = Arena.ofConfined();
                    KitTensors kt = new KitTensors(c);
                    MoeBuffer moe = open(c, cfg);
                    MoeBuffer other = open(c, cfg)) {
                Tensor x = kt.place(Tensor.allocate(a, DType.BF16, 2, 128));
                Tensor idx = ids(a, 0, 1, 2, -1);
                expect("topkIdx[0, 1] = " + e, () -> moe.lowLatencyDispatch(x, ids(a, 0, e, 1, -1), false));
                expect("topkIdx[1, 0] = -2", () -> moe.lowLatencyDispatch(x, ids(a, 0, 1, -2, -1), false));
                expect("names expert 1 twice", () -> moe.lowLatencyDispatch(x, ids(a, 1, 1, 0, -1), false));
                expect(
                        "x must have shape [2, 128]",
                        () -> moe.lowLatencyDispatch(Tensor.allocate(a, DType.BF16, 2, 64), idx, false));
                expect(
                        "x must be BF16",
                        () -> moe.lowLatencyDispatch(Tensor.allocate(a, DType.FP32, 2, 128), idx, false));
                expect(
                        "tokens but the buffer was sized for at most 4",
                        () -> moe.lowLatencyDispatch(
                                Tensor.allocate(a, DType.BF16, 5, 128), ids(a, new long[10]), false));
                expect("useFp8", () -> moe.lowLatencyDispatch(x, idx, true));
                Tensor y = kt.place(Tensor.allocate(a, DType.BF16, e / c.size(), (long) c.size() * 4, 128));
                Tensor w = Tensor.allocate(a, DType.FP32, 2, 2);
                LowLatencyDispatched first = moe.lowLatencyDispatch(x, idx, false);
                LowLatencyDispatched foreign = other.lowLatencyDispatch(x, idx, false);
                expect(
                        "handle was made by another MoE buffer",
                        () -> moe.lowLatencyCombine(y, idx, w, foreign.handle()));
                moe.lowLatencyDispatch(x, idx, false);
                moe.lowLatencyDispatch(x, idx, false).hook().await();
                IllegalStateException stale = assertThrows(
                        IllegalStateException.class, () -> moe.lowLatencyCombine(y, idx, w, first.handle()));
                assertTrue(stale.getMessage().contains("stale"), "stale handle message: " + stale.getMessage());
                foreign.hook().await();
                expect(
                        "this buffer was configured for LOW_LATENCY",
                        () -> moe.dispatch(x, idx, w, null),
                        IllegalStateException.class);
            }
        });
    }

    // ------------------------------------------------------ active-rank mask on an open buffer (MOE_ACTIVE_MASK)

    /**
     * Verifies §7.7 (an active-rank mask set on an open buffer): every rank opens a normal buffer of the whole job, the
     * last rank leaves (it calls nothing more on the buffer), the others set the mask without it and run BF16 dispatch
     * (layout, rows, ids, weights, droppedPerToken, cached-handle dispatch) and combine against the reference fed the same
     * drops / if it fails, look at the kernels' mask reads (an inactive rank's experts skipped, its entries counted per token).
     */
    @Verifies("7.7")
    @Test
    void optional_moe_active_mask_normal() {
        assumeCapability(Capability.MOE_ACTIVE_MASK);
        assumeRanks(2);
        spmd(Capability.MOE_ACTIVE_MASK, pe -> new ActiveMaskChecks(pe.comm(), MoeSuite::open, () -> {}).normal());
    }

    /**
     * Verifies §7.7 (an active-rank mask set on an open buffer) in low-latency mode: BF16 and FP8 dispatch (recvCount,
     * every valid slot, droppedPerToken) and the weighted combine of live contributions, the double-buffer rule too /
     * if it fails, look at slot numbering that skips the inactive rank and the combine's sum over live entries only.
     */
    @Verifies("7.7")
    @Test
    void optional_moe_active_mask_low_latency() {
        assumeCapability(Capability.MOE_ACTIVE_MASK);
        assumeRanks(2);
        spmd(Capability.MOE_ACTIVE_MASK, pe -> new ActiveMaskChecks(pe.comm(), MoeSuite::open, () -> {}).lowLatency());
    }

    /**
     * Verifies §9.13 for setActiveRanks: a mask of the wrong job size, one that leaves the calling rank inactive, and
     * (on the survivors) one that re-activates the rank that left are each refused with one line naming the fault, the
     * active set unchanged, and the buffer still matches the reference after them / if it fails, look at the Java-side
     * checks of setActiveRanks (CheckedMoe and the backend's own).
     */
    @Verifies("9.13")
    @Test
    void optional_moe_active_mask_bad_input() {
        assumeCapability(Capability.MOE_ACTIVE_MASK);
        assumeRanks(2);
        spmd(Capability.MOE_ACTIVE_MASK, pe -> new ActiveMaskChecks(pe.comm(), MoeSuite::open, () -> {}).badInput());
    }

    static Tensor ids(Arena a, long... v) {
        Tensor t = Tensor.allocate(a, DType.INT64, v.length / 2, 2);
        for (int i = 0; i < v.length; i++) t.segment().setAtIndex(ValueLayout.JAVA_LONG, i, v[i]);
        return t;
    }

    static void expect(String fragment, Executable e) {
        expect(fragment, e, IllegalArgumentException.class);
    }

    static void expect(String fragment, Executable e, Class<? extends RuntimeException> type) {
        RuntimeException t = assertThrows(type, e);
        assertTrue(
                t.getMessage().contains(fragment), "message '" + t.getMessage() + "' should name '" + fragment + "'");
    }
}
