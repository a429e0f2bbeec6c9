package dev.unicomm.collectives.moe;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/** BF16 row accumulation and rounding on hand-computed values. */
class RowMathTest {
    static MemorySegment row(short... bits) {
        MemorySegment s = Arena.ofAuto().allocate(2L * bits.length + 2);
        for (int i = 0; i < bits.length; i++) s.set(ValueLayout.JAVA_SHORT_UNALIGNED, 2 + 2L * i, bits[i]);
        return s;
    }

    @Test void accumulatesInFp32AndRoundsToNearestEven() {
        // 1.0, 2^-8, -2.0, 3.0 (bf16 patterns)
        MemorySegment a = row((short) 0x3F80, (short) 0x3B80, (short) 0xC000, (short) 0x4040);
        MemorySegment b = row((short) 0x3B80, (short) 0x3F80, (short) 0x3F80, (short) 0x4040);
        float[] acc = new float[4];
        RowMath.set(acc, a, 2, 4);
        RowMath.add(acc, b, 2, 4);
        assertEquals(1f + 0x1p-8f, acc[0]);
        assertEquals(-1f, acc[2]);
        RowMath.addScaled(acc, a, 2, 0.5f, 4);
        assertEquals(1.5f + 0x1p-8f, acc[0]);
        assertEquals(9f / 2 + 3f, acc[3]);
        MemorySegment out = Arena.ofAuto().allocate(10);
        float[] ties = {1f + 0x1p-8f, 1f + 3 * 0x1p-8f, Float.NaN, -0f};
        RowMath.round(ties, out, 2, 4);
        assertEquals((short) 0x3F80, out.get(ValueLayout.JAVA_SHORT_UNALIGNED, 2));  // tie: even stays
        assertEquals((short) 0x3F82, out.get(ValueLayout.JAVA_SHORT_UNALIGNED, 4));  // tie: odd rounds up
        assertEquals((short) 0x7FC0, out.get(ValueLayout.JAVA_SHORT_UNALIGNED, 6));  // NaN stays NaN
        assertEquals((short) 0x8000, out.get(ValueLayout.JAVA_SHORT_UNALIGNED, 8));
    }
}
