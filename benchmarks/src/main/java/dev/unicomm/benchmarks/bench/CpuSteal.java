package dev.unicomm.benchmarks.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The share of the machine's CPU time the hypervisor gave to other guests (steal, from the {@code cpu}
 * line of {@code /proc/stat}) between two snapshots: on a shared VM the load average misses a noisy
 * neighbour, and the same code then runs slower in every row, bound included.
 */
final class CpuSteal {
    private static final Path STAT = Path.of("/proc/stat");

    /** Cumulative ticks of all CPU states and of steal; {@code null} where {@code /proc/stat} cannot be read. */
    record Ticks(long total, long steal) {}

    private CpuSteal() {}

    static Ticks now() {
        try {
            return parse(Files.readString(STAT));
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * The aggregate {@code cpu} line: user nice system idle iowait irq softirq steal [guest guest_nice].
     * Guest time is already counted in user and nice, so only the first eight fields make the total.
     */
    static Ticks parse(String stat) {
        for (String line : stat.split("\n")) {
            if (!line.startsWith("cpu ")) continue;
            String[] f = line.trim().split("\\s+");
            if (f.length < 9)
                throw new IllegalArgumentException(
                        "the cpu line of /proc/stat has " + (f.length - 1) + " fields, want at least 8");
            long total = 0;
            for (int i = 1; i <= 8; i++) total += Long.parseLong(f[i]);
            return new Ticks(total, Long.parseLong(f[8]));
        }
        throw new IllegalArgumentException("no aggregate cpu line in /proc/stat");
    }

    /** "2.4 % of all CPU time", or why not known. */
    static String between(Ticks before, Ticks after) {
        if (before == null || after == null) return "unknown (" + STAT + " not readable)";
        long total = after.total() - before.total();
        if (total <= 0) return "unknown (no CPU time passed)";
        return String.format(
                java.util.Locale.ROOT, "%.1f %% of all CPU time", 100.0 * (after.steal() - before.steal()) / total);
    }
}
