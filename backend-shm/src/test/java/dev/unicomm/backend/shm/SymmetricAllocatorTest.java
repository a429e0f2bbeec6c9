package dev.unicomm.backend.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SymmetricAllocatorTest {

    @Test
    void offsetsRespectAlignmentAndDoNotOverlap() {
        SymmetricAllocator a = new SymmetricAllocator(1 << 20);
        long x = a.allocate(10, 64);
        long y = a.allocate(1, 4096);
        long z = a.allocate(0, 1);
        assertEquals(0, x);
        assertEquals(4096, y);
        assertEquals(0, y % 4096);
        assertEquals(0, z % SymmetricAllocator.MIN_ALIGNMENT, "every block starts 8-byte aligned for atomics");
        assertNotEquals(x, z);
        assertEquals(16 + 8 + 8, a.used());
    }

    @Test
    void exhaustionReturnsMinusOneAndLeavesStateAlone() {
        SymmetricAllocator a = new SymmetricAllocator(1024);
        assertEquals(0, a.allocate(1000, 8));
        assertEquals(-1, a.allocate(100, 8));
        assertEquals(-1, a.allocate(Long.MAX_VALUE, 8));
        assertEquals(1000, a.used());
        a.free(0);
        assertEquals(0, a.allocate(1024, 8));
    }

    @Test
    void freeCoalescesNeighbours() {
        SymmetricAllocator a = new SymmetricAllocator(3 * 64);
        long p = a.allocate(64, 64), q = a.allocate(64, 64), r = a.allocate(64, 64);
        a.free(p);
        a.free(r);
        a.free(q);
        assertEquals(0, a.used());
        assertEquals(3 * 64, a.largestFree());
        assertEquals(0, a.allocate(3 * 64, 64));
    }

    @Test
    void freeingAnUnknownOffsetIsRejected() {
        SymmetricAllocator a = new SymmetricAllocator(1024);
        long p = a.allocate(8, 8);
        a.free(p);
        var e = assertThrows(IllegalArgumentException.class, () -> a.free(p));
        assertEquals("no symmetric allocation starts at heap offset 0", e.getMessage());
    }

    @Test
    void sameSequenceGivesSameOffsets() {
        assertEquals(trace(42), trace(42));
    }

    /** Offsets of a random but seeded allocate/free sequence. */
    private static List<Long> trace(long seed) {
        Random rnd = new Random(seed);
        SymmetricAllocator a = new SymmetricAllocator(1 << 16);
        List<Long> live = new ArrayList<>(), out = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            if (!live.isEmpty() && rnd.nextInt(3) == 0) {
                a.free(live.remove(rnd.nextInt(live.size())));
            } else {
                long off = a.allocate(rnd.nextInt(512), 1L << rnd.nextInt(8));
                out.add(off);
                if (off >= 0) live.add(off);
            }
        }
        return out;
    }
}
