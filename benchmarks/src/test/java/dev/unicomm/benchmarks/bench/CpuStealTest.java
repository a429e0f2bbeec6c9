package dev.unicomm.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CpuStealTest {
    @Test
    void stealShareComesFromTheAggregateLineWithoutGuestTime() {
        CpuSteal.Ticks a = CpuSteal.parse("cpu  100 0 50 800 10 0 5 35 70 0\ncpu0 50 0 25 400 5 0 2 18 35 0\n");
        CpuSteal.Ticks b = CpuSteal.parse("cpu  200 0 100 1500 10 0 10 180 140 0\n");
        assertEquals(1000, a.total()); // guest (70) is inside user already
        assertEquals(35, a.steal());
        assertEquals("14.5 % of all CPU time", CpuSteal.between(a, b)); // 145 of 1000 ticks
    }

    @Test
    void unreadableOrStalledIsSaidNotGuessed() {
        CpuSteal.Ticks a = new CpuSteal.Ticks(10, 1);
        assertTrue(CpuSteal.between(null, a).startsWith("unknown"));
        assertTrue(CpuSteal.between(a, a).startsWith("unknown (no CPU time"));
        assertThrows(IllegalArgumentException.class, () -> CpuSteal.parse("intr 1 2 3\n"));
        assertThrows(IllegalArgumentException.class, () -> CpuSteal.parse("cpu  1 2 3\n"));
    }

    @Test
    void readsThisMachine() {
        boolean linux = java.nio.file.Files.isReadable(java.nio.file.Path.of("/proc/stat"));
        CpuSteal.Ticks t = CpuSteal.now();
        if (linux) assertTrue(t != null && t.total() > 0 && t.steal() >= 0, String.valueOf(t));
        else assertEquals(null, t);
    }
}
