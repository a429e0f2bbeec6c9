package dev.unicomm.cli;

import dev.unicomm.api.CommConfig;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.RankFailedException;
import dev.unicomm.api.ReduceOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Unicomm;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

/**
 * What {@link RunElasticTest} runs as every rank (issue 45): an elastic job on backend-shm whose rank
 * {@code args[0]} SIGKILLs itself in a barrier loop; the survivors catch the {@link RankFailedException},
 * shrink, and check a few allreduces on the ranks left. {@code args[1] = "fail-after"} makes the survivors fail instead.
 */
public final class ElasticRank {
    private ElasticRank() {}

    public static void main(String[] args) throws Exception {
        int victim = Integer.parseInt(args[0]);
        boolean failAfter = args.length > 1 && args[1].equals("fail-after");
        CommConfig config = CommConfig.fromEnvironment();
        Communicator c = Unicomm.connect(config.withHeapSize(1 << 20));
        c.barrier();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int rank = c.rank();
        try {
            for (int i = 0; i < 1_000_000 && System.nanoTime() < end; i++) {
                if (rank == victim && i == 20) {
                    new ProcessBuilder(
                                    "kill",
                                    "-9",
                                    Long.toString(ProcessHandle.current().pid()))
                            .start()
                            .waitFor();
                    Thread.sleep(10_000); // SIGKILL is on its way
                }
                c.barrier();
            }
            throw new IllegalStateException("rank " + rank + ": no RankFailedException within 30 s");
        } catch (RankFailedException e) {
            System.out.println("rank " + rank + " lost ranks " + Arrays.toString(e.failedRanks()));
        }
        Communicator s = c.shrink();
        c.close();
        if (failAfter) System.exit(5);
        long expected = Arrays.stream(s.jobRanks()).sum();
        try (SymmetricBuffer src = s.heap().allocate(8);
                SymmetricBuffer dst = s.heap().allocate(8)) {
            MemorySegment one = Arena.ofAuto().allocate(8);
            for (int i = 0; i < 5; i++) {
                one.set(ValueLayout.JAVA_LONG, 0, s.jobRanks()[s.rank()]);
                s.rma().put(src, 0, one, s.rank());
                s.collectives().allreduce(s.world(), dst, src, 1, DType.INT64, ReduceOp.SUM);
                s.rma().get(one, dst, 0, s.rank());
                long sum = one.get(ValueLayout.JAVA_LONG, 0);
                if (sum != expected)
                    throw new IllegalStateException(
                            "allreduce on the survivors gave " + sum + ", expected " + expected);
            }
        }
        System.out.println("rank " + rank + " went on as " + s.rank() + "/" + s.size() + " allreduce ok");
        s.close();
    }
}
