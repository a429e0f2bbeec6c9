package dev.unicomm.internal.checked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CallMismatchException;
import dev.unicomm.api.DType;
import dev.unicomm.api.ExpertMask;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.ReduceOp;
import dev.unicomm.api.Team;
import dev.unicomm.internal.rendezvous.LocalStore;
import dev.unicomm.spi.CallAgreement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 45, item 4 (c, d): a call mismatch names the argument that differs and both values in
 * words, never a packed number. Three ranks are threads sharing an in-memory agreement and store.
 */
@Timeout(60)
class CallMismatchWordsTest {
    private static final int N = 3;
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    /** Every member publishes its words and gets everyone's, like a backend's agreement. */
    private static final class SharedAgreement implements CallAgreement {
        private final long[][] slots = new long[N][];
        private final CyclicBarrier meet = new CyclicBarrier(N);

        @Override
        public long[][] exchange(Team team, long[] words) {
            try {
                slots[team.rank()] = words.clone();
                meet.await(10, TimeUnit.SECONDS);
                long[][] all = new long[N][];
                for (int p = 0; p < N; p++) all[p] = slots[p].clone();
                meet.await(10, TimeUnit.SECONDS);
                return all;
            } catch (Exception e) {
                throw new IllegalStateException("agreement of the test ranks failed", e);
            }
        }
    }

    private record World(int rank) implements Team {
        @Override
        public int size() {
            return N;
        }

        @Override
        public int worldRank(int teamRank) {
            return teamRank;
        }

        @Override
        public Team split(int start, int stride, int size) {
            throw new UnsupportedOperationException();
        }

        @Override
        public Split2d split2d(int xRange) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void barrier() {
            throw new UnsupportedOperationException();
        }

        @Override
        public void close() {}
    }

    /** Runs one call on every rank with that rank's words; returns each rank's mismatch message. */
    private static List<String> mismatch(CallLedger.Op op, IntFunction<long[]> wordsOfRank) throws Exception {
        SharedAgreement agreement = new SharedAgreement();
        LocalStore store = new LocalStore(TIMEOUT);
        List<Thread> ranks = new ArrayList<>();
        String[] messages = new String[N];
        for (int r = 0; r < N; r++) {
            int rank = r;
            ranks.add(Thread.ofPlatform().start(() -> {
                CallLedger ledger = new CallLedger(agreement, store, rank, TIMEOUT);
                try {
                    ledger.call(
                            new CallLedger.Counter(), new World(rank), op, () -> wordsOfRank.apply(rank), () -> "ran");
                    messages[rank] = "no mismatch";
                } catch (CallMismatchException e) {
                    messages[rank] = e.getMessage();
                }
            }));
        }
        for (Thread t : ranks) t.join(TimeUnit.SECONDS.toMillis(30));
        return List.of(messages);
    }

    @Test
    void aDtypeMismatchNamesTheFieldAndBothTypes() throws Exception {
        for (String m : mismatch(
                CallLedger.Op.ALLREDUCE,
                r -> CallLedger.args(16, CallLedger.pack(r == 2 ? DType.FP32 : DType.BF16, ReduceOp.SUM)))) {
            assertTrue(m.contains("dtype: rank 0 passed BF16, rank 2 passed FP32"), m);
            assertTrue(m.contains("rank 2 made a different call"), m);
            assertTrue(m.contains("allreduce #1 (count 16, dtype FP32, op SUM)"), m);
            assertFalse(m.contains("dtype/op"), m);
        }
    }

    @Test
    void aBroadcastRootMismatchNamesTheRoot() throws Exception {
        for (String m : mismatch(
                CallLedger.Op.BROADCAST, r -> CallLedger.args(8, CallLedger.pack(DType.INT64, r == 1 ? 300 : 0)))) {
            assertTrue(m.contains("root: rank 0 passed 0, rank 1 passed 300"), m);
        }
    }

    @Test
    void aMoeConfigMismatchNamesTheFieldThatDiffers() throws Exception {
        MoeConfig big = MoeConfig.normal(12, 7168, 128), small = MoeConfig.normal(12, 4096, 128);
        for (String m : mismatch(CallLedger.Op.MOE_OPEN, r -> CallWords.moeOpen(r == 2 ? small : big, null))) {
            assertTrue(m.contains("hidden: rank 0 passed 7168, rank 2 passed 4096"), m);
            assertFalse(m.contains("numExperts:") || m.contains("config "), m);
        }
    }

    @Test
    void aMaskMismatchSaysMask() throws Exception {
        ExpertMask a = new ExpertMask(4, new int[] {0, 1, 2}), b = new ExpertMask(4, new int[] {0, 1, 3});
        MoeConfig c = MoeConfig.normal(12, 1024, 64);
        for (String m : mismatch(CallLedger.Op.MOE_OPEN, r -> CallWords.moeOpen(c, r == 1 ? b : a))) {
            assertTrue(
                    m.contains("mask: rank 0 passed a mask of 3 active ranks")
                            && m.contains("rank 1 passed a mask of 3 active ranks"),
                    m);
        }
        for (String m : mismatch(CallLedger.Op.MOE_OPEN, r -> CallWords.moeOpen(c, r == 0 ? null : a))) {
            assertTrue(
                    m.contains("mask: rank 1 passed a mask of 3 active ranks") && m.contains("rank 0 passed none"), m);
        }
    }

    @Test
    void agreeingRanksRunTheCall() throws Exception {
        assertEquals(
                List.of("no mismatch", "no mismatch", "no mismatch"),
                mismatch(CallLedger.Op.ALLREDUCE, r -> CallLedger.args(16, CallLedger.pack(DType.BF16, ReduceOp.SUM))));
    }
}
