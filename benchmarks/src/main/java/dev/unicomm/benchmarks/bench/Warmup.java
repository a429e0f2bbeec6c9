package dev.unicomm.benchmarks.bench;

import dev.unicomm.api.Communicator;
import java.util.Arrays;

/**
 * Warm-up that lasts until the JIT has caught up, not a fixed number of rounds. Until C2 has
 * compiled the host path, Vector API code runs as boxed Java (10-100x slower); on a loaded 2-core
 * host with four JVMs compiling at once, 50 low-latency rounds still left one rank's quantiser in that
 * state in the timed rounds (JFR: {@code IntVector.bOpTemplate} under {@code VectorFp8.encode}).
 */
final class Warmup {
    private Warmup() {}

    /**
     * Runs {@code round} (a collective step) until every rank's round time is steady: at least
     * {@code minRounds}, then until the median of the last {@code window} rounds has not improved
     * by more than 5 % for {@code patience} rounds on any rank, or {@code maxNanos} have passed (which
     * ends it even before {@code minRounds}). A slow phase that stays level for {@code patience} rounds
     * passes for steady: {@code minRounds} and {@code patience} are what guard against that.
     * Collective: the ranks agree after each round ({@link RankWords}) so they stop together.
     *
     * @return rounds run
     */
    static int untilSteady(Communicator comm, int minRounds, int window, int patience, long maxNanos, Runnable round) {
        // Flags by RMA (RankWords), not an allreduce: the portable allreduce keeps its scratch on the heap,
        // which split the free space so that the next MoE buffer no longer fitted.
        try (RankWords flags = new RankWords(comm)) {
            long start = System.nanoTime();
            long[] times = new long[Math.max(minRounds, window) + patience + 1];
            double best = Double.MAX_VALUE;
            int rounds = 0, sinceBest = 0;
            while (true) {
                long t0 = System.nanoTime();
                round.run();
                if (rounds == times.length) times = Arrays.copyOf(times, 2 * rounds);
                times[rounds++] = System.nanoTime() - t0;
                if (rounds >= window) {
                    long[] last = Arrays.copyOfRange(times, rounds - window, rounds);
                    Arrays.sort(last);
                    double median = last[window / 2];
                    if (median < 0.95 * best) {
                        best = median;
                        sinceBest = 0;
                    } else {
                        sinceBest++;
                    }
                }
                boolean steady = rounds >= minRounds && sinceBest >= patience;
                boolean more = !steady && System.nanoTime() - start < maxNanos;
                boolean anyMore = false;
                for (long f : flags.exchange(more ? 1 : 0)) anyMore |= f != 0;
                if (!anyMore) return rounds;
            }
        }
    }
}
