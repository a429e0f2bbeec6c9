package dev.unicomm.collectives.fp8;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The fast e4m3 encoder against a plain nearest-value search over the code table. */
class Fp8EncodeTest {
    static float decode(int code) {
        int exp = (code >>> 3) & 0xF, man = code & 7;
        float v = exp == 0 ? man * 0x1p-9f : (1f + man / 8f) * (float) Math.scalb(1.0, exp - 7);
        return (code & 0x80) != 0 ? -v : v;
    }

    /** Nearest of codes 0..126 by value, ties to the even code; sign copied; beyond 448 saturates; NaN -> 0x7F. */
    static byte slow(float f) {
        if (Float.isNaN(f)) return 0x7F;
        float a = Math.abs(f);
        int best = 0;
        for (int c = 1; c <= 126; c++) {
            float d = Math.abs(decode(c) - a), db = Math.abs(decode(best) - a);
            if (d < db || (d == db && c % 2 == 0)) best = c;
        }
        return (byte) ((Float.floatToRawIntBits(f) < 0 ? 0x80 : 0) | best);
    }

    @Test void encodesLikeANearestEvenSearch() {
        // Every float from 2^-12 to 512 in steps of 2^12 ulps (mantissa patterns incl. exact ties), both signs.
        for (int bits = 0x39800000; bits <= 0x44000000; bits += 1 << 12) {
            for (float f : new float[] {Float.intBitsToFloat(bits), -Float.intBitsToFloat(bits), Float.intBitsToFloat(bits + 1)})
                assertEquals(slow(f), Fp8Quantiser.encode(f), () -> "encode(" + f + ")");
        }
        for (float f : new float[] {0f, -0f, 448f, 464f, 480f, 1e9f, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, 0x1p-10f, 3 * 0x1p-10f})
            assertEquals(slow(f), Fp8Quantiser.encode(f), () -> "encode(" + f + ")");
        assertEquals((byte) 0x7F, Fp8Quantiser.encode(Float.NaN));
    }
}
