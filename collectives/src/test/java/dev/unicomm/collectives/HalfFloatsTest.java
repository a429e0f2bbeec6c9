package dev.unicomm.collectives;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class HalfFloatsTest {
    @Test
    void bf16RoundTripsEveryValueExactly() {
        for (int h = 0; h < 0x10000; h++) {
            float f = HalfFloats.bf16ToFloat((short) h);
            if (Float.isNaN(f)) assertTrue(Float.isNaN(HalfFloats.bf16ToFloat(HalfFloats.floatToBf16(f))));
            else assertEquals((short) h, HalfFloats.floatToBf16(f), "bf16 0x" + Integer.toHexString(h));
        }
    }

    @Test
    void bf16RoundsToNearestEven() {
        assertEquals((short) 0x3f80, HalfFloats.floatToBf16(Float.intBitsToFloat(0x3f808000))); // tie, even stays
        assertEquals((short) 0x3f82, HalfFloats.floatToBf16(Float.intBitsToFloat(0x3f818000))); // tie, odd rounds up
        assertEquals((short) 0x3f81, HalfFloats.floatToBf16(Float.intBitsToFloat(0x3f808001))); // above half
        assertEquals((short) 0x7f80, HalfFloats.floatToBf16(Float.MAX_VALUE)); // overflow to infinity
        assertTrue(
                Float.isNaN(HalfFloats.bf16ToFloat(HalfFloats.floatToBf16(Float.intBitsToFloat(0x7f800001)))),
                "a NaN whose payload sits in the low bits stays NaN");
        SplittableRandom rnd = new SplittableRandom(5);
        for (int i = 0; i < 200_000; i++) {
            float f = Float.intBitsToFloat(rnd.nextInt());
            if (Float.isNaN(f)) continue;
            assertEquals(
                    Reference.bf16(f),
                    HalfFloats.floatToBf16(f),
                    "bits 0x" + Integer.toHexString(Float.floatToRawIntBits(f)));
        }
    }

    @Test
    void fp16MatchesIeeeBinary16() {
        assertEquals((short) 0x3c00, HalfFloats.floatToFp16(1f));
        assertEquals((short) 0x7bff, HalfFloats.floatToFp16(65504f));
        assertEquals((short) 0x7c00, HalfFloats.floatToFp16(65520f)); // rounds up past the largest finite value
        assertEquals((short) 0x3c00, HalfFloats.floatToFp16(1f + 0x1p-11f)); // tie to even
        assertEquals(0x1p-24f, HalfFloats.fp16ToFloat((short) 1)); // smallest subnormal
    }
}
