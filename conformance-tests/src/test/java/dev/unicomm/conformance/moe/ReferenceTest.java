package dev.unicomm.conformance.moe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.moe.reference.Bf16;
import dev.unicomm.moe.reference.Fp8E4m3;
import dev.unicomm.moe.reference.MoeReference;
import dev.unicomm.moe.reference.TokenBatch;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The reference against cases computed by hand. */
class ReferenceTest {

    @Test
    void bf16RoundsToNearestEven() {
        assertEquals((short) 0x3F80, Bf16.fromFloat(1f));
        assertEquals((short) 0x3F80, Bf16.fromFloat(1f + 0x1p-8f)); // halfway, even stays
        assertEquals((short) 0x3F82, Bf16.fromFloat(1f + 3 * 0x1p-8f)); // halfway, odd rounds up
        assertEquals((short) 0x3F81, Bf16.fromFloat(1f + 0x1p-8f + 0x1p-20f)); // above halfway
        assertEquals((short) 0xC000, Bf16.fromFloat(-2f));
        assertTrue(Bf16.isNaN(Bf16.fromFloat(Float.NaN)));
        assertEquals(1.0078125f, Bf16.toFloat((short) 0x3F81));
        assertEquals(1, Bf16.ulpDistance((short) 0x3F80, (short) 0x3F81));
        assertEquals(0, Bf16.ulpDistance((short) 0x0000, (short) 0x8000));
        assertEquals(2, Bf16.ulpDistance((short) 0x0001, (short) 0x8001));
    }

    @Test
    void fp8CodesAndRounding() {
        assertEquals(448f, Fp8E4m3.decode((byte) 0x7E));
        assertTrue(Float.isNaN(Fp8E4m3.decode((byte) 0x7F)));
        assertEquals(0x1p-6f, Fp8E4m3.decode((byte) 0x08));
        assertEquals(0x1p-9f, Fp8E4m3.decode((byte) 0x01));
        assertEquals(-2f, Fp8E4m3.decode((byte) 0xC0));
        assertEquals((byte) 0x38, Fp8E4m3.encode(1f));
        assertEquals((byte) 0x38, Fp8E4m3.encode(1.0625f)); // halfway 1.0 / 1.125 -> even code
        assertEquals((byte) 0x3A, Fp8E4m3.encode(1.1875f)); // halfway 1.125 / 1.25 -> even code
        assertEquals((byte) 0x02, Fp8E4m3.encode(3 * 0x1p-10f)); // subnormal halfway -> even
        assertEquals((byte) 0x7E, Fp8E4m3.encode(500f));
        assertEquals((byte) 0xC0, Fp8E4m3.encode(-2f));
        assertEquals((byte) 0x00, Fp8E4m3.encode(0x1p-11f));
    }

    @Test
    void fp8QuantisesPerBlockOfA128Channels() {
        short[] row = new short[256];
        row[0] = Bf16.fromFloat(2f);
        row[1] = Bf16.fromFloat(-1f);
        row[128] = Bf16.fromFloat(0.5f);
        byte[] data = new byte[256];
        float[] scales = new float[2];
        Fp8E4m3.quantiseRow(row, 0, 256, data, 0, scales, 0);
        assertEquals(2f / 448f, scales[0]);
        assertEquals(0.5f / 448f, scales[1]);
        assertEquals((byte) 0x7E, data[0]); // 2 * 224 = 448
        assertEquals(Fp8E4m3.encode(-224f), data[1]); // -1 * 224
        assertEquals((byte) 0x7E, data[128]);
        assertEquals((byte) 0, data[2]);
        short[] zeros = new short[128];
        float[] s = new float[1];
        Fp8E4m3.quantiseRow(zeros, 0, 128, new byte[128], 0, s, 0);
        assertEquals(1e-4f / 448f, s[0]); // amax clamped like DeepEP
        assertTrue(Fp8E4m3.withinQuantisationError(
                1.03f,
                Fp8E4m3.dequantise(new byte[] {Fp8E4m3.encode(1.03f * 224f)}, 0, new float[] {1f / 224f}, 0, 0),
                1f / 224f));
    }

    // R = 2 ranks, E = 4 experts (2 per rank), K = 2, H = 2.
    final MoeReference ref = new MoeReference(2, 4, 2, 2);
    final long[] topk0 = {0, 3, 1, -1, -1, -1, 2, 3};
    final long[] topk1 = {3, 0, 2, -1};

    static TokenBatch batch(long[] topk, float[] weights, float... values) {
        short[] x = new short[values.length];
        for (int i = 0; i < x.length; i++) x[i] = Bf16.fromFloat(values[i]);
        return new TokenBatch(topk.length / 2, MoeReference.bf16ToBytes(x), null, topk, weights);
    }

    List<TokenBatch> inputs() {
        return List.of(
                batch(topk0, new float[] {.1f, .2f, .3f, 0, 0, 0, .4f, .5f}, 1, 2, 3, 4, 5, 6, 7, 8),
                batch(topk1, new float[] {.6f, .7f, .8f, 0}, 10, 20, 30, 40));
    }

    @Test
    void layoutCountsTokensPerRankAndPairsPerExpert() {
        MoeReference.Layout l = ref.layout(topk0);
        assertArrayEquals(new int[] {2, 2}, l.tokensPerRank());
        assertArrayEquals(new int[] {1, 1, 1, 2}, l.tokensPerExpert());
        assertArrayEquals(new boolean[] {true, true, true, false, false, false, false, true}, l.isTokenInRank());
    }

    @Test
    void dispatchOrdersBySourceRankThenTokenAndMapsToLocalIds() {
        MoeReference.Dispatch d = ref.dispatch(1, inputs(), 4);
        assertEquals(4, d.numRecv());
        assertArrayEquals(new int[] {0, 0, 1, 1}, d.routing().srcRank());
        assertArrayEquals(new int[] {0, 3, 0, 1}, d.routing().srcToken());
        short[] got = new short[8];
        MoeReference.bytesToBf16(d.recvX(), 0, got, 8);
        float[] values = new float[8];
        for (int i = 0; i < 8; i++) values[i] = Bf16.toFloat(got[i]);
        assertArrayEquals(new float[] {1, 2, 7, 8, 10, 20, 30, 40}, values);
        assertArrayEquals(new long[] {-1, 1, 0, 1, 1, -1, 0, -1}, d.recvTopkIdx());
        assertArrayEquals(new float[] {0, .2f, .4f, .5f, .6f, 0, .8f, 0}, d.recvTopkWeights());
        assertArrayEquals(new int[] {4, 4}, d.numRecvTokensPerExpert()); // 2 and 3, aligned to 4
        assertArrayEquals(new int[] {2, 3}, ref.dispatch(1, inputs(), 1).numRecvTokensPerExpert());
        MoeReference.Dispatch d0 = ref.dispatch(0, inputs(), 1); // r0t0 (e0), r0t1 (e1), r1t0 (e0)
        assertArrayEquals(new int[] {0, 0, 1}, d0.routing().srcRank());
        assertArrayEquals(new int[] {0, 1, 0}, d0.routing().srcToken());
        assertArrayEquals(new int[] {2, 1}, d0.numRecvTokensPerExpert());
    }

    @Test
    void combineSumsOverReceivingRanksWithoutWeights() {
        List<long[]> topk = List.of(topk0, topk1);
        MoeReference.Dispatch[] d = {ref.dispatch(0, inputs(), 1), ref.dispatch(1, inputs(), 1)};
        MoeReference.Combined c = ref.combine(
                0,
                topk,
                (r, i, dst) -> MoeReference.bytesToBf16(d[r].recvX(), i * 4, dst, 2),
                (r, i) -> java.util.Arrays.copyOfRange(d[r].recvTopkWeights(), i * 2, i * 2 + 2));
        float[] x = new float[8];
        for (int i = 0; i < 8; i++) x[i] = Bf16.toFloat(c.x()[i]);
        // t0 went to both ranks (2x), t1 to rank 0 only, t2 nowhere (0), t3 to rank 1 only.
        assertArrayEquals(new float[] {2, 4, 3, 4, 0, 0, 7, 8}, x);
        assertArrayEquals(new float[] {.1f, .2f, .3f, 0, 0, 0, .4f, .5f}, c.topkWeights());
        // One token on rank 0 sent to both ranks: 1 + 2^-8 is summed in fp32 and rounded once (to even: 1.0),
        // 1 + 3 * 2^-8 rounds up.
        MoeReference two = new MoeReference(2, 2, 1, 2);
        List<long[]> both = List.of(new long[] {0, 1}, new long[0]);
        short[] sum = two.combine(0, both, (r, i, dst) -> dst[0] = Bf16.fromFloat(r == 0 ? 1f : 0x1p-8f), null)
                .x();
        assertEquals(1f, Bf16.toFloat(sum[0]));
        sum = two.combine(0, both, (r, i, dst) -> dst[0] = Bf16.fromFloat(r == 0 ? 1f : 3 * 0x1p-8f), null)
                .x();
        assertEquals(1.015625f, Bf16.toFloat(sum[0]));
    }

    @Test
    void lowLatencyDispatchFillsPerExpertSlotsAndCombineWeights() {
        List<TokenBatch> in = inputs();
        MoeReference.LowLatencyDispatch d = ref.lowLatencyDispatch(1, in, 4, false);
        assertArrayEquals(new int[] {2, 3}, d.recvCount());
        assertEquals(8, d.slotsPerExpert());
        // expert 2 (local 0): r0t3, r1t1; expert 3 (local 1): r0t0, r0t3, r1t0
        assertArrayEquals(new int[] {0, 1, -1}, java.util.Arrays.copyOfRange(d.srcRank(), 0, 3));
        assertArrayEquals(new int[] {3, 1}, java.util.Arrays.copyOfRange(d.srcToken(), 0, 2));
        assertArrayEquals(new int[] {0, 0, 1}, java.util.Arrays.copyOfRange(d.srcRank(), 8, 11));
        assertArrayEquals(new int[] {0, 3, 0}, java.util.Arrays.copyOfRange(d.srcToken(), 8, 11));
        short[] row = new short[2];
        MoeReference.bytesToBf16(d.recvX(), (8 + 1) * 4, row, 2);
        assertEquals(7f, Bf16.toFloat(row[0]));
        assertEquals(2, ref.lowLatencySlot(List.of(topk0, topk1), 1, 0, 3));

        List<long[]> topk = List.of(topk0, topk1);
        // y = 100 * rank + 10 * local + slot in every channel
        short[] out = ref.lowLatencyCombine(
                0,
                topk,
                new float[] {.5f, .25f, 1, 0, 0, 0, .5f, .5f},
                4,
                (r, local, slot, dst) -> java.util.Arrays.fill(dst, Bf16.fromFloat(100 * r + 10 * local + slot)));
        // t0: e0 (rank0 local0 slot0) * .5 + e3 (rank1 local1 slot0) * .25 = 0 + 110 * .25 = 27.5
        assertEquals(27.5f, Bf16.toFloat(out[0]));
        // t1: e1 (rank0 local1 slot0) * 1 = 10
        assertEquals(10f, Bf16.toFloat(out[2]));
        assertEquals(0f, Bf16.toFloat(out[4]));
        // t3: e2 (rank1 local0 slot0) * .5 + e3 (rank1 local1 slot1) * .5 = 50 + 55.5 = 105.5 -> bf16 105.5
        assertEquals(105.5f, Bf16.toFloat(out[6]));
    }

    @Test
    void lowLatencyFp8DispatchQuantisesEachRow() {
        MoeReference r = new MoeReference(1, 2, 128, 1);
        short[] x = new short[128];
        x[5] = Bf16.fromFloat(-3f);
        x[6] = Bf16.fromFloat(1f);
        MoeReference.LowLatencyDispatch d = r.lowLatencyDispatch(
                0, List.of(new TokenBatch(1, MoeReference.bf16ToBytes(x), null, new long[] {1}, null)), 2, true);
        assertArrayEquals(new int[] {0, 1}, d.recvCount());
        int slot = 2; // expert 1, slot 0
        assertEquals(3f / 448f, d.recvScales()[slot]);
        assertEquals((byte) 0xFE, d.recvX()[slot * 128 + 5]);
        assertEquals(Fp8E4m3.encode(448f / 3f), d.recvX()[slot * 128 + 6]);
    }
}
