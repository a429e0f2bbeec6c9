package dev.unicomm.benchmarks.bench;

import dev.unicomm.api.ByteSize;
import dev.unicomm.launch.JobSpec;

/**
 * The allowed ranges of the bench commands' sizes and counts, checked before any job starts, so that
 * {@code --max-size 1T} is one line naming the option, its value and the range instead of a failed
 * heap allocation on every rank.
 */
final class BenchLimits {
    private BenchLimits() {}

    /** Largest transfer or message size: every rank's symmetric heap must hold it (16 GiB). */
    static final long MAX_SIZE = 16L << 30;
    /** Most ranks of one bench job (as {@code unicomm run}). */
    static final int MAX_RANKS = JobSpec.MAX_RANKS;
    /** Most timed iterations or repetitions of anything: beyond it a run takes days. */
    static final long MAX_ITERATIONS = 1_000_000_000L;

    /** {@code text} as bytes in [1 B, {@code max}]. */
    static long size(String option, String text, long max) {
        long v = ByteSize.parse(option, text);
        if (v < 1 || v > max)
            throw new IllegalArgumentException(
                    option + " " + text.trim() + " is out of range: allowed 1 B .. " + ByteSize.format(max));
        return v;
    }

    /** {@code value} in [{@code min}, {@code max}]. */
    static long count(String option, long value, long min, long max) {
        if (value < min || value > max)
            throw new IllegalArgumentException(
                    option + " " + value + " is out of range: allowed " + min + " .. " + max);
        return value;
    }

    /** {@code value} seconds in (0, {@code max}]. */
    static double seconds(String option, double value, double max) {
        if (!(value > 0 && value <= max))
            throw new IllegalArgumentException(
                    option + " " + value + " is out of range: allowed more than 0 .. " + max + " seconds");
        return value;
    }
}
