package dev.unicomm.conformance.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.MoeLayout;
import dev.unicomm.api.ReduceOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Tensor;
import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.KitSuite;
import dev.unicomm.conformance.Pe;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/**
 * Issue #18 finding 0: a collective call that one rank rejected, skipped or replaced by another
 * call fails on every rank, naming the operation and that rank, and never returns data. 4 shm
 * worker processes; the communicator stays usable afterwards (barrier + allocate, the calls that
 * used to satisfy the other ranks' MoE barriers).
 */
class ShmCallAgreementTest extends KitSuite {
    static final KitPlug PLUG = ShmKit.PLUG.ranks(4).timeout(Duration.ofSeconds(20));

    static final int EXPERTS = 16, HIDDEN = 128, TOKENS = 8, TOPK = 2;

    /** Routing every rank can compute: token t of rank r goes to experts (r+t) % 16 and (r+t+5) % 16. */
    static Tensor ids(Arena a, int rank) {
        Tensor t = Tensor.allocate(a, DType.INT64, TOKENS, TOPK);
        for (int i = 0; i < TOKENS; i++) {
            t.segment().setAtIndex(ValueLayout.JAVA_LONG, 2L * i, (rank + i) % EXPERTS);
            t.segment().setAtIndex(ValueLayout.JAVA_LONG, 2L * i + 1, (rank + i + 5) % EXPERTS);
        }
        return t;
    }

    /** The others must fail with the call named and rank 1 blamed; rank 1 gets its own argument error. */
    static void othersBlameRank1(Pe pe, String op, String rank1Says, Executable call) {
        if (pe.rank() == 1) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call, "rank 1's own bad call");
            assertTrue(e.getMessage().contains(rank1Says), "rank 1's message: " + e.getMessage());
            return;
        }
        IllegalArgumentException e;
        try {
            call.execute();
            fail("rank " + pe.rank() + ": " + op + " returned although rank 1 rejected its arguments");
            return;
        } catch (IllegalArgumentException x) {
            e = x;
        } catch (Throwable t) {
            throw new AssertionError(
                    "rank " + pe.rank() + ": expected a call-mismatch IllegalArgumentException, got " + t, t);
        }
        String m = e.getMessage();
        assertTrue(
                m.contains("rank 1 rejected its own arguments to " + op),
                "must blame rank 1 and name " + op + ": " + m);
        assertTrue(m.contains(rank1Says), "must carry rank 1's reason: " + m);
    }

    static void stillUsable(Communicator c) {
        c.barrier();
        try (SymmetricBuffer b = c.heap().allocate(4096)) {
            c.barrier();
        }
    }

    @Test
    void required_agreement_bad_topk_on_rank_1_fails_normal_dispatch_everywhere() {
        spmd(pe -> {
            Communicator c = pe.comm();
            MoeConfig cfg = new MoeConfig(MoeConfig.Mode.NORMAL, EXPERTS, HIDDEN, TOKENS, TOPK, false);
            try (Arena a = Arena.ofConfined();
                    MoeBuffer moe = c.moe(cfg)) {
                Tensor idx = ids(a, c.rank());
                MoeLayout layout = moe.layout(idx);
                if (c.rank() == 1) idx.segment().setAtIndex(ValueLayout.JAVA_LONG, 0, EXPERTS); // id 16 of 16 experts
                Tensor x = Tensor.allocate(a, DType.BF16, TOKENS, HIDDEN);
                othersBlameRank1(
                        pe, "moe dispatch", "topkIdx[0, 0] = 16", () -> moe.dispatch(x, null, idx, null, layout, 1));
                stillUsable(c);
                // The same buffer still works once every rank passes good input.
                Tensor good = ids(a, c.rank());
                var d = moe.dispatch(x, null, good, null, moe.layout(good), 1);
                moe.combine(d.recvX(), d.handle(), null);
            }
        });
    }

    @Test
    void required_agreement_bad_topk_on_rank_1_fails_low_latency_dispatch_everywhere() {
        spmd(pe -> {
            Communicator c = pe.comm();
            MoeConfig cfg = new MoeConfig(MoeConfig.Mode.LOW_LATENCY, EXPERTS, HIDDEN, TOKENS, TOPK, false);
            try (Arena a = Arena.ofConfined();
                    MoeBuffer moe = c.moe(cfg)) {
                Tensor idx = ids(a, c.rank());
                if (c.rank() == 1) idx.segment().setAtIndex(ValueLayout.JAVA_LONG, 0, EXPERTS);
                Tensor x = Tensor.allocate(a, DType.BF16, TOKENS, HIDDEN);
                othersBlameRank1(
                        pe,
                        "moe lowLatencyDispatch",
                        "topkIdx[0, 0] = 16",
                        () -> moe.lowLatencyDispatch(x, idx, false));
                stillUsable(c);
            }
        });
    }

    @Test
    void required_agreement_rank_1_calling_barrier_instead_of_dispatch_fails_everywhere() {
        spmd(pe -> {
            Communicator c = pe.comm();
            MoeConfig cfg = new MoeConfig(MoeConfig.Mode.NORMAL, EXPERTS, HIDDEN, TOKENS, TOPK, false);
            try (Arena a = Arena.ofConfined();
                    MoeBuffer moe = c.moe(cfg)) {
                Tensor idx = ids(a, c.rank());
                Tensor x = Tensor.allocate(a, DType.BF16, TOKENS, HIDDEN);
                Executable call =
                        c.rank() == 1 ? c::barrier : () -> moe.dispatch(x, null, idx, null, moe.layout(idx), 1);
                IllegalArgumentException e = assertThrows(
                        IllegalArgumentException.class,
                        call,
                        "rank " + c.rank() + ": the call must fail because rank 1 called barrier");
                assertTrue(e.getMessage().contains("rank 1 made a different call"), e.getMessage());
                assertTrue(e.getMessage().contains(c.rank() == 1 ? "barrier" : "moe dispatch"), e.getMessage());
                stillUsable(c);
            }
        });
    }

    @Test
    void required_agreement_rank_1_rejecting_its_allreduce_fails_everywhere() {
        spmd(pe -> {
            Communicator c = pe.comm();
            try (SymmetricBuffer small = c.heap().allocate(16);
                    SymmetricBuffer big = c.heap().allocate(64)) {
                SymmetricBuffer dst = c.rank() == 1 ? small : big; // rank 1's dst cannot hold 16 ints
                othersBlameRank1(pe, "allreduce", "allreduce dst holds 16 bytes", () -> c.collectives()
                        .allreduce(c.world(), dst, big, 16, DType.INT32, ReduceOp.SUM));
                stillUsable(c);
            }
        });
    }

    @Test
    void required_agreement_different_allocation_sizes_name_the_odd_rank() {
        spmd(pe -> {
            Communicator c = pe.comm();
            IllegalArgumentException e = assertThrows(
                    IllegalArgumentException.class,
                    () -> c.heap().allocate(c.rank() == 2 ? 128 : 64).close());
            assertTrue(e.getMessage().contains("rank 2 made a different call"), e.getMessage());
            assertEquals("heap allocate", ((dev.unicomm.api.CallMismatchException) e).operation());
            stillUsable(c);
        });
    }
}
