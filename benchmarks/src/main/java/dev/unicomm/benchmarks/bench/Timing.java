package dev.unicomm.benchmarks.bench;

import java.util.Arrays;
import java.util.List;

/**
 * Timing of repeated operations on a shared, noisy machine: warm up, calibrate a batch size per
 * operation, then time the operations <em>interleaved</em> (A B C, A B C, ...) and take each one's
 * median, so an operation and its reference see the same machine conditions.
 */
public final class Timing {
    private Timing() {}

    /** A loop of {@code iters} operations; implementations keep the loop inside so the JIT sees one call site. */
    @FunctionalInterface
    public interface Batch {
        void run(long iters);
    }

    /** Batches of about this long are timed. */
    static final long TARGET_NS = 10_000_000;
    /** Warm-up per operation: enough for the JIT to compile the loop and for page faults to settle. */
    static final long WARMUP_NS = 40_000_000;

    static final int REPEATS = 11;

    /** Iterations per timed batch and the median time per operation. */
    public record Result(long iters, double nsPerOp) {}

    /** Each batch warmed up and calibrated, then timed {@value #REPEATS} times interleaved with the others. */
    public static List<Result> compare(List<Batch> batches) {
        long[] iters = new long[batches.size()];
        for (int b = 0; b < iters.length; b++) iters[b] = calibrate(batches.get(b));
        double[][] perOp = new double[iters.length][REPEATS];
        for (int r = 0; r < REPEATS; r++) {
            for (int b = 0; b < iters.length; b++) perOp[b][r] = (double) time(batches.get(b), iters[b]) / iters[b];
        }
        Result[] out = new Result[iters.length];
        for (int b = 0; b < iters.length; b++) {
            Arrays.sort(perOp[b]);
            out[b] = new Result(iters[b], perOp[b][REPEATS / 2]);
        }
        return List.of(out);
    }

    /** One batch on its own (see {@link #compare}). */
    public static Result measure(Batch batch) {
        return compare(List.of(batch)).getFirst();
    }

    /** Median time per operation over {@code repeats} runs of a fixed {@code iters} (collective loops: every rank runs the same count). */
    public static Result measureFixed(Batch batch, long iters, int repeats) {
        time(batch, iters); // warm-up
        double[] perOp = new double[repeats];
        for (int i = 0; i < repeats; i++) perOp[i] = (double) time(batch, iters) / iters;
        Arrays.sort(perOp);
        return new Result(iters, perOp[repeats / 2]);
    }

    /** Warms the batch up, then finds an iteration count that takes about {@value #TARGET_NS} ns. */
    static long calibrate(Batch batch) {
        long iters = 1;
        for (long spent = 0; spent < WARMUP_NS && iters < 1L << 30; iters *= 2) spent += time(batch, iters);
        iters = 1;
        while (iters < 1L << 30) {
            long t = time(batch, iters);
            if (t >= TARGET_NS / 4) return iters * 4;
            iters *= t <= 0 ? 16 : Math.max(2, Math.min(16, TARGET_NS / 4 / Math.max(1, t)));
        }
        return iters;
    }

    private static long time(Batch batch, long iters) {
        long t0 = System.nanoTime();
        batch.run(iters);
        return System.nanoTime() - t0;
    }
}
