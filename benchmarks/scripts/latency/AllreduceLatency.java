import dev.unicomm.api.Collectives;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.ReduceOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Unicomm;
import java.util.Arrays;

/**
 * Per-call latency distribution of a small allreduce (FP32 SUM, out of place), which `bench
 * collectives` reports only as a mean. Arguments: ELEMENTS WARMUP_CALLS TIMED_CALLS. Every rank
 * times each call with System.nanoTime; rank 0 prints its mean and percentiles. The warm-up calls
 * are untimed, so the JIT state of the timed calls is stated by the command, not guessed. It also
 * prints the heap bytes rank 0 allocated per timed call (garbage means GC pauses, which stall every rank).
 * Run it with benchmarks/scripts/allreduce-latency.sh.
 */
public final class AllreduceLatency {
    public static void main(String[] args) {
        int elements = Integer.parseInt(args[0]);
        int warm = Integer.parseInt(args[1]), timed = Integer.parseInt(args[2]);
        try (Communicator comm = Unicomm.connect();
             SymmetricBuffer src = comm.heap().allocate(4L * elements);
             SymmetricBuffer dst = comm.heap().allocate(4L * elements)) {
            Collectives coll = comm.collectives();
            for (int i = 0; i < warm; i++) coll.allreduce(comm.world(), dst, src, elements, DType.FP32, ReduceOp.SUM);
            long[] t = new long[timed];
            var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            long allocated = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < timed; i++) {
                long t0 = System.nanoTime();
                coll.allreduce(comm.world(), dst, src, elements, DType.FP32, ReduceOp.SUM);
                t[i] = System.nanoTime() - t0;
            }
            double perCall = (threads.getCurrentThreadAllocatedBytes() - allocated) / (double) timed;
            double mean = Arrays.stream(t).sum() / 1e3 / timed;
            Arrays.sort(t);
            if (comm.rank() == 0)
                System.out.printf("allreduce %d B, %d ranks, %d warm-up + %d timed calls (us): mean %.1f p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f max %.1f; %.0f B allocated per call%n",
                        4L * elements, comm.size(), warm, timed, mean, at(t, 0.5), at(t, 0.9), at(t, 0.99), at(t, 0.999), t[timed - 1] / 1e3, perCall);
        }
    }

    private static double at(long[] sorted, double q) { return sorted[(int) Math.min(sorted.length - 1, q * sorted.length)] / 1e3; }
}
