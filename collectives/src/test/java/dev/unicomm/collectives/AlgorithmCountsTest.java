package dev.unicomm.collectives;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.unicomm.api.Combined;
import dev.unicomm.api.DType;
import dev.unicomm.api.Dispatched;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.ReduceOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Tensor;
import dev.unicomm.testsupport.threads.ThreadWorld;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code Communicator.algorithmCounts()} names what ran: on 2 simulated hosts x 2 ranks the world's allreduce
 * and allgather in two levels and the normal MoE hierarchical (auto); on one host RMA (no direct access) and flat.
 */
class AlgorithmCountsTest {
    private static final Map<String, String> SMALL_SLOTS =
            Map.of("unicomm.collectives.slot.bytes", "256", "unicomm.collectives.inline.bytes", "64");

    @ParameterizedTest(name = "hosts {0}: {1}, MoE {2}")
    @CsvSource({"0 0 1 1,two_level,hierarchical,flat", "0 0 0 0,rma,flat,hierarchical"})
    void countsNameTheAlgorithmThatRan(String hostsOfRanks, String collective, String moe, String notMoe) {
        int[] hosts = Arrays.stream(hostsOfRanks.split(" "))
                .mapToInt(Integer::parseInt)
                .toArray();
        MoeConfig cfg = new MoeConfig(MoeConfig.Mode.NORMAL, 8, 16, 2, 2, false);
        try (ThreadWorld w = ThreadWorld.create(hosts.length, false, 16 << 20)) {
            w.job().properties(SMALL_SLOTS).hosts(hosts).runOk(comm -> {
                Map<String, Long> before = comm.algorithmCounts();
                try (SymmetricBuffer a = comm.heap().allocate(64 << 10)) {
                    comm.collectives().allreduce(comm.world(), a, a, 300, DType.FP32, ReduceOp.SUM);
                    comm.collectives().allgather(comm.world(), a, a, 1000, DType.UINT8);
                }
                try (Arena arena = Arena.ofConfined();
                        MoeBuffer buf = comm.moe(cfg)) {
                    Tensor idx = Tensor.allocate(arena, DType.INT64, 2, 2),
                            wts = Tensor.allocate(arena, DType.FP32, 2, 2);
                    Tensor x = Tensor.allocate(arena, DType.BF16, 2, 16);
                    long[] ids = {
                        comm.rank() * 2L,
                        (comm.rank() * 2L + 3) % 8,
                        (comm.rank() * 2L + 5) % 8,
                        (comm.rank() * 2L + 6) % 8
                    };
                    java.lang.foreign.MemorySegment.copy(
                            ids, 0, idx.segment(), ValueLayout.JAVA_LONG_UNALIGNED, 0, ids.length);
                    for (int i = 0; i < 4; i++) wts.segment().setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, 0.5f);
                    Dispatched d = buf.dispatch(x, null, idx, wts, buf.layout(idx), 1);
                    Combined c = buf.combine(d.recvX(), d.handle(), d.recvTopkWeights());
                    assertEquals(2, c.x().dim(0));
                }
                Map<String, Long> ran = new TreeMap<>(comm.algorithmCounts());
                before.forEach((k, n) -> ran.merge(k, -n, Long::sum));
                ran.values().removeIf(n -> n == 0);
                String all = "rank " + comm.rank() + " ran " + ran;
                assertEquals(1L, ran.get("allreduce/" + collective), all);
                assertEquals(1L, ran.get("allgather/" + collective), all);
                assertEquals(1L, ran.get("moe.dispatch/" + moe), all);
                assertEquals(1L, ran.get("moe.combine/" + moe), all);
                assertFalse(ran.keySet().stream().anyMatch(k -> k.endsWith("/" + notMoe)), all);
            });
        }
    }
}
