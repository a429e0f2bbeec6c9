package dev.unicomm.backend.nvshmem.internal.moe;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.MoeConfig.Mode;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The shapes of current MoE models against the native kernels' limits (no GPU): what is accepted, what is refused
 * and with which reason; buffer sizes and index arithmetic at 256 and 2048 ranks, and a Java mirror of the kernels'
 * routing past 32 ranks (ucn_moe_normal_dispatch.cuh's moe_wide_positions, ucn_moe_rows.cuh's moe_rank_first and
 * moe_token_dests) checked against the plain definition.
 */
class MoeShapeLimitsTest {
    /** cudaDevAttrMaxSharedMemoryPerBlockOptin of an H100 or H200. */
    private static final long HOPPER_SMEM = 232_448;

    private static String why(Mode mode, int experts, int hidden, int tokens, int topk, boolean fp8, int ranks) {
        return MoeKernelLimits.unsupported(new MoeConfig(mode, experts, hidden, tokens, topk, fp8), ranks, HOPPER_SMEM);
    }

    @Test
    void topkFrom1To32IsAcceptedAnd33IsRefusedWithItsReason() {
        for (Mode mode : Mode.values())
            for (int k : new int[] {1, 8, 16, 22, 32})
                assertNull(why(mode, 256, 7168, mode == Mode.NORMAL ? 8192 : 512, k, true, 8), mode + " k=" + k);
        String msg = why(Mode.NORMAL, 256, 7168, 128, 33, false, 8);
        assertTrue(msg.contains("top-k up to 32") && msg.contains("one warp lane per expert slot"), msg);
    }

    @Test
    void hiddenIsAnyMultipleOf8ForBf16AndOf128ForFp8() {
        for (int h = 1024; h <= 8192; h += 8)
            assertNull(why(Mode.NORMAL, 256, h, 4096, 8, false, 8), "bf16 hidden " + h);
        for (int h = 1024; h <= 8192; h += 128) {
            assertNull(why(Mode.NORMAL, 256, h, 4096, 8, true, 8), "fp8 hidden " + h);
            assertNull(why(Mode.LOW_LATENCY, 256, h, 512, 8, true, 8), "fp8 low-latency hidden " + h);
        }
        String bf16 = why(Mode.NORMAL, 256, 1028, 128, 8, false, 8);
        assertTrue(bf16.contains("multiple of 8") && bf16.contains("16-byte vectors") && bf16.contains("1028"), bf16);
        IllegalArgumentException fp8 =
                assertThrows(IllegalArgumentException.class, () -> new MoeConfig(Mode.NORMAL, 256, 1032, 128, 8, true));
        assertTrue(fp8.getMessage().contains("multiple of 128"), fp8.getMessage());
    }

    @Test
    void expertsUpTo2048AndTheTokenLimitsOfEachModeFit() {
        for (int ranks : new int[] {2, 8, 32, 64, 256, 2048}) {
            assertNull(
                    why(Mode.NORMAL, 2048, 7168, 8192, 8, true, ranks),
                    "normal, 2048 experts, 8192 tokens, " + ranks + " PEs");
            assertNull(
                    why(Mode.LOW_LATENCY, 2048, 7168, 512, 8, true, ranks),
                    "low-latency, 2048 experts, 512 tokens, " + ranks + " PEs");
        }
        IllegalArgumentException indivisible =
                assertThrows(IllegalArgumentException.class, () -> MoeConfig.normal(2048, 7168, 128)
                        .numLocalExperts(40));
        assertTrue(indivisible.getMessage().contains("divisible"), indivisible.getMessage());
    }

    @Test
    void lowLatencyTokensPastTheBitmapAreRefusedWithTheLimit() {
        String msg = why(Mode.LOW_LATENCY, 2048, 7168, 1024, 8, true, 8); // 2048 x 32 words = 256 KiB > 227 KiB
        assertTrue(msg.contains("bitmap") && msg.contains("at most 896 tokens per rank with 2048 experts"), msg);
        assertEquals(4L * 2048 * 16, MoeKernelLimits.lowLatencySharedBytes(MoeConfig.lowLatency(2048, 7168, 512)));
    }

    @Test
    void ranksPast32UseTheGroupScanWhoseSharedMemoryDoesNotGrowWithTokens() {
        MoeConfig cfg = MoeConfig.normal(2048, 7168, 8192);
        assertEquals(4L * (2048 + 34 * 32 + 8192), MoeKernelLimits.normalSharedBytes(cfg, 32));
        assertEquals(4L * (2048 + 2 * 33 + 1024), MoeKernelLimits.normalSharedBytes(cfg, 33));
        assertEquals(4L * (2048 + 2 * 2048 + 1024), MoeKernelLimits.normalSharedBytes(cfg, 2048));
        String msg = why(Mode.NORMAL, 64, 1024, 64, 2, false, 4096);
        assertTrue(msg.contains("up to 2048 PEs"), msg);
    }

    @Test
    void indicesStayIn32BitsAt2048Ranks() {
        for (Mode mode : Mode.values())
            for (int ranks : new int[] {256, 2048}) {
                MoeConfig cfg = new MoeConfig(mode, 2048, 8192, mode == Mode.NORMAL ? 8192 : 512, 32, true);
                long largest = MoeKernelLimits.largestIntIndex(cfg, ranks);
                assertTrue(largest < Integer.MAX_VALUE, mode + " " + ranks + " PEs: " + largest);
            }
        assertEquals(2048L * (2048 + 1), MoeKernelLimits.largestIntIndex(MoeConfig.normal(2048, 7168, 128), 2048));
    }

    @Test
    void layoutsAt256And2048RanksAreAlignedOrderedAndSizedByTheRanks() {
        for (int ranks : new int[] {256, 2048}) {
            MoeConfig n = MoeConfig.normal(2048, 2048, 128);
            MoeSymLayout l = MoeSymLayout.of(n, ranks);
            long r = ranks, rows = r * 128, local = 2048 / ranks;
            assertEquals(0, l.cnt());
            assertEquals(MoeSymLayout.align(2 * r * (r + local) * 8), l.done(), "count matrix [2][R][R+L]");
            assertEquals(MoeSymLayout.align(l.done() + 8 * r), l.ready());
            assertEquals(MoeSymLayout.align(l.ready() + 8 * r), l.recv());
            assertEquals(MoeSymLayout.align(l.recv() + rows * 2 * 2048), l.recvIdx());
            assertEquals(MoeSymLayout.align(l.recvIdx() + rows * 8 * 8), l.recvW());
            assertEquals(MoeSymLayout.align(l.recvW() + rows * 8 * 4), l.total());
            assertTrue(
                    l.total() <= n.sizeHint(ranks) + 2 * r * (r + local) * 8 + 16 * r + 1024, ranks + ": " + l.total());

            MoeConfig ll = MoeConfig.lowLatency(2048, 2048, 16);
            MoeSymLayout q = MoeSymLayout.of(ll, ranks);
            long slots = r * 16;
            assertEquals(MoeSymLayout.align(2 * r * 2048 * 8), q.done(), "count matrix [2][R][E]");
            assertEquals(MoeSymLayout.align(local * slots * 2 * 2048), q.region());
            assertEquals(q.recv() + 2 * q.region(), q.recvIdx());
            assertEquals(MoeSymLayout.align(q.recvIdx() + 2 * slots * 8 * 8), q.recvW());
            assertEquals(MoeSymLayout.align(q.recvW() + 2 * slots * 8 * 8), q.comb());
            assertEquals(q.comb() + 2 * slots * 4 * 2048, q.total());
            for (long off : new long[] {q.done(), q.ready(), q.recv(), q.recvIdx(), q.recvW(), q.comb()})
                assertEquals(0, off % 256);
        }
    }

    // ---- a Java mirror of the kernels' routing past 32 ranks

    /** moe_rank_first: the rank of slot k if it is the token's first valid expert on that rank, else -1. */
    static int rankFirst(long[] row, int k, int experts, int local) {
        long e = row[k];
        if (e < 0 || e >= experts) return -1;
        int d = (int) (e / local);
        for (int j = 0; j < k; j++) if (row[j] >= 0 && row[j] < experts && row[j] / local == d) return -1;
        return d;
    }

    /**
     * moe_wide_positions for one block of blockDim threads over tokens [0, T): per chunk and per group of 32 ranks, a
     * ballot per rank in each warp, an exclusive scan over the warps, then base + warp prefix + lanes before.
     */
    static int[][] widePositions(long[][] idx, int experts, int local, int ranks, int blockDim) {
        int tokens = idx.length, warps = blockDim / 32;
        int[][] pos = new int[tokens][ranks];
        int[] base = new int[ranks];
        for (int c0 = 0; c0 < tokens; c0 += blockDim) {
            for (int g0 = 0; g0 < ranks; g0 += 32) {
                int[] mask = new int[blockDim];
                for (int th = 0; th < blockDim; th++) {
                    int t = c0 + th;
                    for (int k = 0; t < tokens && k < idx[t].length; k++) {
                        long e = idx[t][k];
                        if (e < 0 || e >= experts) continue;
                        int d = (int) (e / local) - g0;
                        if (d >= 0 && d < 32) mask[th] |= 1 << d;
                    }
                }
                int g = Math.min(32, ranks - g0);
                for (int d = 0; d < g; d++) {
                    int[] ballot = new int[warps];
                    for (int th = 0; th < blockDim; th++)
                        if ((mask[th] >>> d & 1) != 0) ballot[th / 32] |= 1 << (th % 32);
                    int before = 0;
                    int[] prefix = new int[warps];
                    for (int w = 0; w < warps; w++) {
                        prefix[w] = before;
                        before += Integer.bitCount(ballot[w]);
                    }
                    for (int th = 0; th < blockDim && c0 + th < tokens; th++) {
                        boolean in = (mask[th] >>> d & 1) != 0;
                        int lane = th % 32,
                                below = lane == 0 ? 0 : Integer.bitCount(ballot[th / 32] & ((1 << lane) - 1));
                        pos[c0 + th][g0 + d] = in ? base[g0 + d] + prefix[th / 32] + below : -1;
                    }
                    base[g0 + d] += before;
                }
            }
        }
        return pos;
    }

    /** moe_token_dests (WIDE): lane j gets the token's j-th destination in ascending rank order; {rank, position} per lane. */
    static int[][] tokenDests(int[] posRow) {
        int[][] lanes = new int[32][];
        int n = 0;
        for (int g0 = 0; g0 < posRow.length && n < 32; g0 += 32) {
            int ballot = 0;
            for (int lane = 0; lane < 32; lane++)
                if (g0 + lane < posRow.length && posRow[g0 + lane] >= 0) ballot |= 1 << lane;
            int c = Integer.bitCount(ballot);
            for (int lane = n; lane < 32 && lane - n < c; lane++) {
                int from = nthSetBit(ballot, lane - n + 1);
                lanes[lane] = new int[] {g0 + from, posRow[g0 + from]};
            }
            n += c;
        }
        return lanes;
    }

    private static int nthSetBit(int bits, int n) { // __fns(bits, 0, n)
        for (int i = 0; i < 32; i++) if ((bits >>> i & 1) != 0 && --n == 0) return i;
        return -1;
    }

    private static long[][] routing(Random rnd, int tokens, int experts, int topk) {
        long[][] idx = new long[tokens][topk];
        for (long[] row : idx) {
            for (int k = 0; k < topk; k++) row[k] = rnd.nextInt(experts);
            if (rnd.nextInt(8) == 0) row[rnd.nextInt(topk)] = -1; // unused slots
            if (topk > 1 && rnd.nextInt(16) == 0) row[1] = row[0]; // a repeat: counted once
        }
        return idx;
    }

    @Test
    void wideRoutingMirrorNumbersTokensPerRankInTokenOrderAt256And2048Ranks() {
        int[][] shapes = {{256, 2048, 8, 700}, {256, 512, 22, 300}, {2048, 2048, 32, 96}, {40, 320, 8, 600}};
        Random rnd = new Random(51);
        for (int[] s : shapes) {
            int ranks = s[0], experts = s[1], topk = s[2], tokens = s[3], local = experts / ranks;
            long[][] idx = routing(rnd, tokens, experts, topk);
            int[][] pos = widePositions(idx, experts, local, ranks, 512);
            int[] next = new int[ranks], counted = new int[ranks];
            for (int t = 0; t < tokens; t++) {
                boolean[] to = new boolean[ranks];
                for (long e : idx[t]) if (e >= 0) to[(int) (e / local)] = true;
                int[] want = new int[ranks];
                for (int d = 0; d < ranks; d++) want[d] = to[d] ? next[d]++ : -1;
                assertArrayEquals(want, pos[t], "token " + t + " of " + Arrays.toString(s));
                for (int k = 0; k < topk; k++) {
                    int d = rankFirst(idx[t], k, experts, local);
                    if (d >= 0) counted[d]++;
                }
                int[][] lanes = tokenDests(pos[t]);
                int lane = 0;
                for (int d = 0; d < ranks; d++) {
                    if (!to[d]) continue;
                    assertArrayEquals(new int[] {d, pos[t][d]}, lanes[lane++], "lane order of token " + t);
                }
                for (; lane < 32; lane++) assertNull(lanes[lane]);
            }
            assertArrayEquals(next, counted, "per-rank totals from each destination's first expert");
        }
    }
}
