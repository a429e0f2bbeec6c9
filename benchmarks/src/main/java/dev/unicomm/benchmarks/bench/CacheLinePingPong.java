package dev.unicomm.benchmarks.bench;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The hardware floor for cross-core signalling, measured in one process: two threads bounce a
 * counter through two cache lines. Half a round trip is the one-way latency any barrier or
 * ping-pong between two cores pays at least.
 */
final class CacheLinePingPong {
    private CacheLinePingPong() {}

    /** Median one-way latency in ns over {@code repeats} runs of {@code rounds} round trips. */
    static double oneWayNs(long rounds, int repeats) {
        double[] runs = new double[repeats + 1];
        for (int r = 0; r < runs.length; r++) runs[r] = run(rounds);
        double[] timed = java.util.Arrays.copyOfRange(runs, 1, runs.length); // first run warms up
        java.util.Arrays.sort(timed);
        return timed[repeats / 2];
    }

    private static double run(long rounds) {
        // Padded so the two counters never share a cache line.
        AtomicLong[] lines = new AtomicLong[32];
        for (int i = 0; i < lines.length; i++) lines[i] = new AtomicLong();
        AtomicLong ping = lines[8], pong = lines[24];
        Thread echo = Thread.ofPlatform().start(() -> {
            for (long i = 1; i <= rounds; i++) {
                while (ping.get() < i) Thread.onSpinWait();
                pong.set(i);
            }
        });
        long t0 = System.nanoTime();
        for (long i = 1; i <= rounds; i++) {
            ping.set(i);
            while (pong.get() < i) Thread.onSpinWait();
        }
        long t = System.nanoTime() - t0;
        try {
            echo.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        return t / 2.0 / rounds;
    }
}
