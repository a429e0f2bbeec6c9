package dev.unicomm.benchmarks.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The machine's load average from {@code /proc/loadavg}, printed around a benchmark so figures from a busy machine are recognisable. */
final class LoadAverage {
    private LoadAverage() {}

    private static final Path LOADAVG = Path.of("/proc/loadavg");

    /** "1-min 5-min 15-min (N cores)", or a note why it is not known. */
    static String now() {
        int cores = Runtime.getRuntime().availableProcessors();
        try {
            String[] f = Files.readString(LOADAVG).strip().split("\\s+");
            if (f.length < 3) return "unknown (" + LOADAVG + " has " + f.length + " fields)";
            return f[0] + " " + f[1] + " " + f[2] + " (1/5/15 min; " + cores + " cores)";
        } catch (IOException | RuntimeException e) {
            return "unknown (" + LOADAVG + ": " + e.getMessage() + ")";
        }
    }
}
