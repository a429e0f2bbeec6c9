package dev.unicomm.benchmarks.bench;

import dev.unicomm.api.Collectives;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.ReduceOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Team;
import dev.unicomm.api.Unicomm;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.management.CompilationMXBean;
import java.lang.management.ManagementFactory;
import java.util.Arrays;
import java.util.List;

/**
 * One rank of {@code unicomm bench collectives}. Arguments: {@code OPS SIZES SECONDS_PER_SIZE WARMUP_SECONDS},
 * comma-separated. For each op and size: warm up, agree on an iteration count (allreduce MAX of
 * one timed call, so every rank runs the same loop), time the loop between two barriers, and take
 * the slowest rank's time (allreduce MAX). Rank 0 prints {@link CollRow#toLine()} lines, including
 * the same-run reference: its own {@code MemorySegment.copy} of the same bytes.
 * Reductions are FP32 SUM, out of place.
 */
public final class CollectivesBenchWorker {
    private CollectivesBenchWorker() {}

    /** The collectives this benchmark knows. */
    static final List<String> OPS = List.of("allreduce", "allgather", "reducescatter", "alltoall", "broadcast");

    /**
     * Warm-up goes on past {@code WARMUP_SECONDS} while any rank's JIT still compiled something in the
     * last pass, up to this much longer. Ranks that compile while others wait stall the small sizes
     * for milliseconds (seen: the first 40% of a 4-byte allreduce loop at 3-12 ms per slow call on 2
     * loaded cores, none after).
     */
    private static final long MAX_EXTRA_WARMUP_NS = 20_000_000_000L;

    public static void main(String[] args) {
        CompilationMXBean jit = ManagementFactory.getCompilationMXBean();
        List<String> ops = Arrays.asList(args[0].split(","));
        List<Long> sizes =
                Arrays.stream(args[1].split(",")).map(Long::parseLong).toList();
        double budget = Double.parseDouble(args[2]);
        long warmNs = (long) (Double.parseDouble(args[3]) * 1e9);
        long max = sizes.stream().mapToLong(Long::longValue).max().orElseThrow();
        try (BenchRecording jfr = BenchRecording.startIfRequested();
                Communicator comm = Unicomm.connect();
                Arena arena = Arena.ofConfined()) {
            Collectives coll = comm.collectives();
            try (SymmetricBuffer src = comm.heap().allocate(max, 4096);
                    SymmetricBuffer dst = comm.heap().allocate(max, 4096);
                    SymmetricBuffer time = comm.heap().allocate(64);
                    SymmetricBuffer maxTime = comm.heap().allocate(64)) {
                src.segment().fill((byte) 1);
                dst.segment().fill((byte) 0);
                MemorySegment a = comm.rank() == 0 ? arena.allocate(max, 4096).fill((byte) 1) : null;
                MemorySegment b = comm.rank() == 0 ? arena.allocate(max, 4096).fill((byte) 0) : null;
                for (String op : ops) {
                    // Warm-up: untimed passes over every size (every algorithm), through the timed loop's own
                    // method, for at least WARMUP_SECONDS and then until no rank's JIT compiled anything in a
                    // pass. Fixed counts per pass and an agreed decision to go on: every rank makes the same calls.
                    long warmStart = System.nanoTime();
                    boolean again;
                    do {
                        long compiledBefore = jit.getTotalCompilationTime();
                        for (long bytes : sizes) {
                            Runnable call = call(coll, comm.world(), op, src, dst, bytes);
                            if (call != null) timeLoop(call, Math.max(2, Math.min(2_000, (16L << 20) / bytes)));
                        }
                        long spent = System.nanoTime() - warmStart;
                        boolean compiling = jit.getTotalCompilationTime() > compiledBefore;
                        again = spent < warmNs || (compiling && spent < warmNs + MAX_EXTRA_WARMUP_NS);
                    } while (slowest(coll, comm, time, maxTime, again ? 1 : 0) == 1);
                    for (long bytes : sizes) {
                        Runnable call = call(coll, comm.world(), op, src, dst, bytes);
                        if (call == null) continue; // size not divisible into the op's units
                        timeLoop(call, Math.max(2, Math.min(20, (64L << 20) / bytes)));
                        // The loop length comes from a probe of several calls for small sizes: one call that met a
                        // stall would shorten the loop to a few calls, all then weighed by that stall.
                        long probe = bytes <= (64 << 10) ? 20 : 1;
                        long one = slowest(coll, comm, time, maxTime, timeLoop(call, probe)) / probe;
                        long iters = Math.max(3, Math.min(10_000, (long) (budget * 1e9 / Math.max(1, one))));
                        comm.barrier();
                        long ns = slowest(coll, comm, time, maxTime, timeLoop(call, iters));
                        if (comm.rank() == 0) {
                            double us = ns / 1e3 / iters;
                            System.out.println(CollRow.of(op, comm.size(), bytes, us, copyBw(a, b, bytes))
                                    .toLine());
                        }
                    }
                }
            }
        }
    }

    /** Times {@code iters} calls; the warm-up runs through here too, so this loop is compiled before it is timed. */
    private static long timeLoop(Runnable call, long iters) {
        long t0 = System.nanoTime();
        for (long i = 0; i < iters; i++) call.run();
        return System.nanoTime() - t0;
    }

    /** The largest of every rank's {@code ns}. */
    private static long slowest(Collectives coll, Communicator comm, SymmetricBuffer in, SymmetricBuffer out, long ns) {
        in.segment().set(ValueLayout.JAVA_LONG, 0, ns);
        coll.allreduce(comm.world(), out, in, 1, DType.INT64, ReduceOp.MAX);
        return out.segment().get(ValueLayout.JAVA_LONG, 0);
    }

    /** The call for NCCL-tests size {@code bytes} (see {@link CollRow}), or null if it does not divide. */
    static Runnable call(Collectives coll, Team t, String op, SymmetricBuffer src, SymmetricBuffer dst, long bytes) {
        int n = t.size();
        return switch (op) {
            case "allreduce" ->
                bytes % 4 != 0 ? null : () -> coll.allreduce(t, dst, src, bytes / 4, DType.FP32, ReduceOp.SUM);
            case "allgather" -> bytes % n != 0 ? null : () -> coll.allgather(t, dst, src, bytes / n, DType.UINT8);
            case "reducescatter" ->
                bytes % (4L * n) != 0
                        ? null
                        : () -> coll.reduceScatter(t, dst, src, bytes / 4 / n, DType.FP32, ReduceOp.SUM);
            case "alltoall" -> bytes % n != 0 ? null : () -> coll.alltoall(t, dst, src, bytes / n, DType.UINT8);
            case "broadcast" -> () -> coll.broadcast(t, dst, src, bytes, DType.UINT8, 0);
            default ->
                throw new IllegalArgumentException(
                        "unknown collective '" + op + "' (allreduce, allgather, reducescatter, alltoall, broadcast)");
        };
    }

    /** GB/s of one {@code MemorySegment.copy} of {@code bytes} in this process (rank 0's reference). */
    private static double copyBw(MemorySegment a, MemorySegment b, long bytes) {
        for (int i = 0; i < 3; i++) MemorySegment.copy(a, 0, b, 0, bytes);
        long iters = Math.max(3, Math.min(100_000, (256L << 20) / bytes));
        long t0 = System.nanoTime();
        for (long i = 0; i < iters; i++) MemorySegment.copy(a, 0, b, 0, bytes);
        double ns = (System.nanoTime() - t0) / (double) iters;
        return bytes / ns;
    }
}
