package dev.unicomm.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class LoadAverageTest {
    @Test
    void readsThreeFiguresAndTheCoreCount() {
        String load = LoadAverage.now();
        boolean linux = java.nio.file.Files.isReadable(java.nio.file.Path.of("/proc/loadavg"));
        assertTrue(
                linux
                        ? load.matches("\\d+\\.\\d+ \\d+\\.\\d+ \\d+\\.\\d+ \\(1/5/15 min; \\d+ cores\\)")
                        : load.startsWith("unknown"),
                load);
    }
}
