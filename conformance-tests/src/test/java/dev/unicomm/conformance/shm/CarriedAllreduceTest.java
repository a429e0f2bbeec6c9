package dev.unicomm.conformance.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CallMismatchException;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.ReduceOp;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Team;
import dev.unicomm.spi.BackendCommunicator;
import dev.unicomm.spi.BackendRegistry;
import dev.unicomm.spi.CallAgreement;
import dev.unicomm.spi.CommBackendProvider;
import dev.unicomm.spi.PayloadAgreement;
import dev.unicomm.testsupport.ThreadJob;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

/**
 * Issue #22: on shm a small allreduce carries its data in the call agreement's exchange, so it is
 * one all-member round, and issue #18's rules still hold on that path: a rank that makes another
 * call (a barrier, a larger allreduce that runs the two-round way) or rejects its own arguments
 * fails every rank with {@link CallMismatchException}, and the communicator stays usable. Four shm
 * PEs as threads; the backend is wrapped to count agreement exchanges and RMA puts per rank.
 */
class CarriedAllreduceTest {
    static final int RANKS = 4;
    /** 16 INT32: well inside the agreement's payload. */
    static final int SMALL = 16;
    /** 4096 INT32 = 16 KiB: larger than the payload, runs the portable collectives' own rounds. */
    static final int LARGE = 4096;

    final AtomicLongArray exchanges = new AtomicLongArray(RANKS);
    final AtomicLongArray puts = new AtomicLongArray(RANKS);

    /** shm PEs whose agreement exchanges and RMA put-with-signals are counted by rank. */
    ThreadJob countedShm() {
        CommBackendProvider shm = BackendRegistry.load().select("shm");
        return ThreadJob.of(BackendRegistry.report(shm), ctx -> counting(shm.open(ctx)), RANKS)
                .heapSize(8L << 20)
                .timeout(Duration.ofSeconds(30));
    }

    BackendCommunicator counting(BackendCommunicator raw) {
        int rank = raw.rank();
        PayloadAgreement inner = (PayloadAgreement) raw.callAgreement().orElseThrow();
        PayloadAgreement counted = new PayloadAgreement() {
            @Override
            public long[][] exchange(Team team, long[] words) {
                exchanges.incrementAndGet(rank);
                return inner.exchange(team, words);
            }

            @Override
            public long payloadCapacity() {
                return inner.payloadCapacity();
            }

            @Override
            public void exchange(
                    Team team, long[] words, long[][] all, MemorySegment payload, long bytes, MemorySegment[] inputs) {
                exchanges.incrementAndGet(rank);
                inner.exchange(team, words, all, payload, bytes, inputs);
            }
        };
        Rma rma = forward(Rma.class, raw.rma(), name -> {
            if (name.equals("putSignal")) puts.incrementAndGet(rank);
            return null;
        });
        return forward(BackendCommunicator.class, raw, name -> switch (name) {
            case "callAgreement" -> Optional.<CallAgreement>of(counted);
            case "rma" -> rma;
            default -> null;
        });
    }

    /** A proxy that answers what {@code override} returns for a method name and forwards the rest. */
    static <T> T forward(Class<T> type, T target, java.util.function.Function<String, Object> override) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (proxy, m, args) -> {
            Object mine = override.apply(m.getName());
            if (mine != null) return mine;
            try {
                return m.invoke(target, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        }));
    }

    /** Fills {@code b} with {@code rank * 1000 + i} for the first {@code count} ints. */
    static void fill(SymmetricBuffer b, int rank, int count) {
        for (int i = 0; i < count; i++) b.segment().setAtIndex(ValueLayout.JAVA_INT, i, rank * 1000 + i);
    }

    /** Allreduce (SUM) of {@link #fill}ed inputs, checked element by element. */
    static void sumAndCheck(Communicator c, SymmetricBuffer dst, SymmetricBuffer src, int count) {
        fill(src, c.rank(), count);
        c.collectives().allreduce(c.world(), dst, src, count, DType.INT32, ReduceOp.SUM);
        int ranksSum = RANKS * (RANKS - 1) / 2;
        for (int i = 0; i < count; i++)
            assertEquals(
                    ranksSum * 1000 + RANKS * i, dst.segment().getAtIndex(ValueLayout.JAVA_INT, i), "element " + i);
    }

    @Test
    void small_calls_are_one_agreement_exchange_and_no_collectives_message() {
        countedShm().runOk(c -> {
            try (SymmetricBuffer src = c.heap().allocate(4L * LARGE);
                    SymmetricBuffer dst = c.heap().allocate(4L * LARGE)) {
                c.collectives();
                c.barrier();
                long ex0 = exchanges.get(c.rank()), put0 = puts.get(c.rank());
                for (int k = 0; k < 10; k++) sumAndCheck(c, dst, src, SMALL);
                assertEquals(10, exchanges.get(c.rank()) - ex0, "one agreement exchange per small allreduce");
                assertEquals(0, puts.get(c.rank()) - put0, "the portable collectives' own round must be skipped");
                // The counters see the two-round path: a large allreduce agrees once, then sends messages.
                sumAndCheck(c, dst, src, LARGE);
                assertEquals(11, exchanges.get(c.rank()) - ex0);
                assertTrue(
                        puts.get(c.rank()) - put0 >= RANKS - 1,
                        "the large allreduce's descriptor round puts to every peer");
                // Small broadcast and allgather (out of place and in place) are carried too: no collectives message.
                long put1 = puts.get(c.rank()), ex1 = exchanges.get(c.rank());
                fill(src, c.rank(), SMALL);
                c.collectives().broadcast(c.world(), dst, src, SMALL, DType.INT32, 2);
                for (int i = 0; i < SMALL; i++)
                    assertEquals(2000 + i, dst.segment().getAtIndex(ValueLayout.JAVA_INT, i), "broadcast " + i);
                c.collectives().allgather(c.world(), dst, src, SMALL, DType.INT32);
                for (int p = 0; p < RANKS; p++)
                    for (int i = 0; i < SMALL; i++)
                        assertEquals(
                                p * 1000 + i,
                                dst.segment().getAtIndex(ValueLayout.JAVA_INT, (long) p * SMALL + i),
                                "allgather " + p + "/" + i);
                for (int i = 0; i < SMALL; i++)
                    dst.segment().setAtIndex(ValueLayout.JAVA_INT, (long) c.rank() * SMALL + i, -(c.rank() * 1000 + i));
                c.collectives().allgather(c.world(), dst, dst, SMALL, DType.INT32);
                for (int p = 0; p < RANKS; p++)
                    for (int i = 0; i < SMALL; i++)
                        assertEquals(
                                -(p * 1000 + i),
                                dst.segment().getAtIndex(ValueLayout.JAVA_INT, (long) p * SMALL + i),
                                "in place " + p + "/" + i);
                assertEquals(3, exchanges.get(c.rank()) - ex1);
                assertEquals(
                        0, puts.get(c.rank()) - put1, "carried broadcast and allgather send no collectives message");
                // In place, BF16 of a single element: the implementation's arithmetic on the carried inputs.
                src.segment().set(ValueLayout.JAVA_SHORT_UNALIGNED, 0, (short)
                        (Float.floatToRawIntBits(1.5f + c.rank()) >>> 16));
                c.collectives().allreduce(c.world(), src, src, 1, DType.BF16, ReduceOp.MAX);
                assertEquals(
                        1.5f + RANKS - 1,
                        Float.intBitsToFloat(src.segment().get(ValueLayout.JAVA_SHORT_UNALIGNED, 0) << 16));
            }
        });
    }

    @Test
    void rank_1_calling_barrier_instead_of_a_small_allreduce_fails_every_rank() {
        countedShm().runOk(c -> {
            try (SymmetricBuffer src = c.heap().allocate(4L * LARGE);
                    SymmetricBuffer dst = c.heap().allocate(4L * LARGE)) {
                c.collectives();
                CallMismatchException e = assertThrows(CallMismatchException.class, () -> {
                    if (c.rank() == 1) c.barrier();
                    else c.collectives().allreduce(c.world(), dst, src, SMALL, DType.INT32, ReduceOp.SUM);
                });
                assertTrue(e.getMessage().contains("rank 1 made a different call"), e.getMessage());
                assertEquals(1, e.offendingRank(), e.getMessage());
                assertEquals(c.rank() == 1 ? "barrier" : "allreduce", e.operation(), e.getMessage());
                stillWorks(c, dst, src);
            }
        });
    }

    @Test
    void a_small_allreduce_against_a_two_round_one_fails_every_rank_instead_of_waiting() {
        countedShm().runOk(c -> {
            try (SymmetricBuffer src = c.heap().allocate(4L * LARGE);
                    SymmetricBuffer dst = c.heap().allocate(4L * LARGE)) {
                c.collectives();
                int count = c.rank() == 2 ? LARGE : SMALL;
                CallMismatchException e = assertThrows(CallMismatchException.class, () -> c.collectives()
                        .allreduce(c.world(), dst, src, count, DType.INT32, ReduceOp.SUM));
                assertTrue(e.getMessage().contains("rank 2 made a different call"), e.getMessage());
                assertTrue(
                        e.getMessage().contains("count " + LARGE)
                                && e.getMessage().contains("count " + SMALL),
                        e.getMessage());
                stillWorks(c, dst, src);
            }
        });
    }

    @Test
    void rank_1_rejecting_its_small_allreduce_fails_every_rank_with_its_reason() {
        countedShm().runOk(c -> {
            try (SymmetricBuffer src = c.heap().allocate(4L * LARGE);
                    SymmetricBuffer dst = c.heap().allocate(4L * LARGE);
                    SymmetricBuffer tiny = c.heap().allocate(16)) {
                c.collectives();
                long ex0 = exchanges.get(c.rank());
                SymmetricBuffer out = c.rank() == 1 ? tiny : dst;
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> c.collectives()
                        .allreduce(c.world(), out, src, SMALL, DType.INT32, ReduceOp.SUM));
                assertEquals(
                        1, exchanges.get(c.rank()) - ex0, "the rejecting rank and the others meet in one exchange");
                if (c.rank() == 1) {
                    assertTrue(e.getMessage().contains("allreduce dst holds 16 bytes"), e.getMessage());
                } else {
                    assertTrue(e instanceof CallMismatchException, e.toString());
                    assertTrue(
                            e.getMessage()
                                    .contains(
                                            "rank 1 rejected its own arguments to allreduce: allreduce dst holds 16 bytes"),
                            e.getMessage());
                }
                stillWorks(c, dst, src);
            }
        });
    }

    /** After a failed call: barriers, carried and two-round allreduces all still give the right answers. */
    static void stillWorks(Communicator c, SymmetricBuffer dst, SymmetricBuffer src) {
        c.barrier();
        sumAndCheck(c, dst, src, SMALL);
        sumAndCheck(c, dst, src, LARGE);
        sumAndCheck(c, dst, src, SMALL);
    }
}
