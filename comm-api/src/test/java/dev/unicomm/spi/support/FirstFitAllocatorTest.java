package dev.unicomm.spi.support;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class FirstFitAllocatorTest {
    @Test
    void alignsReusesAndMerges() {
        FirstFitAllocator a = new FirstFitAllocator(4096);
        long x = a.allocate(100, 64);
        long y = a.allocate(100, 256);
        assertEquals(0, x);
        assertEquals(256, y);
        assertEquals(200, a.used());
        a.free(x);
        assertEquals(0, a.allocate(50, 8), "first fit reuses the freed block");
        a.free(0);
        a.free(y);
        assertEquals(0, a.used());
        assertEquals(0, a.allocate(4096, 4096), "freed blocks merge back into one");
        assertEquals(-1, a.allocate(1, 1), "full heap");
    }

    @Test
    void freeOfAnUnknownOffsetIsAnError() {
        FirstFitAllocator a = new FirstFitAllocator(1024);
        assertThrows(IllegalStateException.class, () -> a.free(64));
    }
}
