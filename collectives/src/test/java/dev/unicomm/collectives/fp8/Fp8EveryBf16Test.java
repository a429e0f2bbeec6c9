package dev.unicomm.collectives.fp8;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.junit.jupiter.api.Test;

/**
 * Every BF16 bit pattern through both quantiser paths, under several block scales: each code is the
 * nearest-even e4m3 code of {@code x * (448 / amax)} computed in fp32 (found by a plain search of the
 * code table, as {@link Fp8EncodeTest}), and both paths give the same bytes.
 */
class Fp8EveryBf16Test {
    /** Values the block maximum is pinned to (each block also holds 127 patterns; a larger finite pattern takes over). */
    static final float[] PINS = {1f, 448f, 3e-5f, 0x1p-100f, 1e30f, 0.3f, 65504f};

    @Test
    void everyPatternUnderSeveralScalesMatchesTheDefinition() {
        assertTrue(Fp8Quantiser.vectorised(), "tests run with --add-modules jdk.incubator.vector");
        int perBlock = 127, blocksPerRow = 4, patterns = 1 << 16;
        int rows = (patterns + perBlock * blocksPerRow - 1) / (perBlock * blocksPerRow);
        int values = rows * blocksPerRow * 128;
        for (float pin : PINS) {
            short[] in = new short[values];
            for (int i = 0, p = 0;
                    i < values;
                    i++) // pin first in each block, then the next patterns (repeating past the end)
            in[i] = (short) (i % 128 == 0 ? Float.floatToRawIntBits(pin) >>> 16 : p++ % patterns);
            byte[] plain = run(new ScalarFp8(), in, rows, blocksPerRow),
                    vector = run(new VectorFp8(), in, rows, blocksPerRow);
            for (int b = 0; b < values / 128; b++) {
                float amax = 0;
                for (int c = 0; c < 128; c++) amax = Math.max(amax, Math.abs(bf16(in[b * 128 + c])));
                float mul = Fp8Quantiser.MAX / Math.max(amax, Fp8Quantiser.MIN_AMAX);
                for (int c = b * 128; c < (b + 1) * 128; c++) {
                    int at = c;
                    float x = bf16(in[c]);
                    byte want = Float.isNaN(amax) ? 0x7F : Fp8EncodeTest.slow(x * mul);
                    if (!Float.isNaN(amax))
                        assertEquals(want, plain[c], () -> "plain path, pin " + pin + ", input " + x);
                    assertEquals(
                            plain[c],
                            vector[c],
                            () -> "vector path vs plain, pin " + pin + ", input " + x + " at " + at);
                }
            }
        }
    }

    static float bf16(short s) {
        return Float.intBitsToFloat(s << 16);
    }

    static byte[] run(BlockQuantiser q, short[] in, int rows, int blocksPerRow) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(2L * in.length),
                    codes = arena.allocate(in.length),
                    scales = arena.allocate(in.length / 32);
            MemorySegment.copy(in, 0, src, ValueLayout.JAVA_SHORT_UNALIGNED, 0, in.length);
            q.quantise(src, 0, codes, 0, scales, 0, rows, blocksPerRow);
            return codes.toArray(ValueLayout.JAVA_BYTE);
        }
    }
}
