package dev.unicomm.collectives.fp8;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.unicomm.moe.reference.Fp8E4m3;
import org.junit.jupiter.api.Test;

/** The fast e4m3 encoder against the MoE reference's plain nearest-value search over the code table. */
class Fp8EncodeTest {
    /** Nearest code by value, ties to the even code; sign copied; beyond 448 saturates; NaN -> 0x7F. */
    static byte slow(float f) {
        return Fp8E4m3.encode(f);
    }

    @Test
    void encodesLikeANearestEvenSearch() {
        // Every float from 2^-12 to 512 in steps of 2^12 ulps (mantissa patterns incl. exact ties), both signs.
        for (int bits = 0x39800000; bits <= 0x44000000; bits += 1 << 12) {
            for (float f :
                    new float[] {Float.intBitsToFloat(bits), -Float.intBitsToFloat(bits), Float.intBitsToFloat(bits + 1)
                    }) assertEquals(slow(f), Fp8Quantiser.encode(f), () -> "encode(" + f + ")");
        }
        for (float f : new float[] {
            0f, -0f, 448f, 464f, 480f, 1e9f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 0x1p-10f, 3 * 0x1p-10f
        }) assertEquals(slow(f), Fp8Quantiser.encode(f), () -> "encode(" + f + ")");
        assertEquals((byte) 0x7F, Fp8Quantiser.encode(Float.NaN));
    }
}
