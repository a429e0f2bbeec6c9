package dev.unicomm.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The bench's normal-mode routes past 32 ranks (they were a 32-bit mask per token: rank 40 counted as rank 8). */
class NormalRoutesTest {

    @Test
    void rowsAndDestinationsCountEveryRankPast32() {
        int ranks = 40, tokens = 64;
        MoeBenchData data = new MoeBenchData(3, 2 * ranks, 16, 8);
        MoeBenchWorker.NormalRoutes routes = MoeBenchWorker.NormalRoutes.of(data, 5, ranks, tokens);
        int local = data.experts / ranks;
        for (int s = 0; s < ranks; s++) {
            long[] ids = data.topk(s, tokens);
            int[] want = new int[ranks];
            for (int t = 0; t < tokens; t++) {
                boolean[] hit = new boolean[ranks];
                for (int j = 0; j < data.topk; j++) hit[(int) (ids[t * data.topk + j] / local)] = true;
                for (int r = 0; r < ranks; r++) if (hit[r]) want[r]++;
            }
            assertArrayEquals(want, routes.rows()[s], "rows sent by rank " + s);
        }
        long[] mine = data.topk(5, tokens);
        for (int t = 0; t < tokens; t++)
            for (int j = 0; j < data.topk; j++)
                assertTrue(routes.mine()[t].get((int) (mine[t * data.topk + j] / local)), "token " + t + " entry " + j);
        int above32 = 0;
        for (int[] from : routes.rows()) for (int r = 32; r < ranks; r++) above32 += from[r];
        assertTrue(above32 > 0, "the draw sends rows to ranks 32..39");
        assertEquals(tokens, routes.mine().length);
    }
}
