package dev.unicomm.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

/** {@code bench moe --inactive N}: its input checks, and the reference data it verifies the masked rounds against. */
class MoeInactiveOptionTest {

    @Test
    void maskedDataDropsTheInactiveRanksExpertsAndTokens() {
        MoeBenchData data = new MoeBenchData(1, 8, 16, 3), masked = data.masked(3, 4); // rank 3 (experts 6, 7) inactive
        for (int r = 0; r < 4; r++) {
            long[] all = data.topk(r, 50), some = masked.topk(r, 50);
            for (int i = 0; i < all.length; i++) {
                long want = r == 3 || all[i] >= 6 ? -1 : all[i];
                assertEquals(want, some[i], "rank " + r + " entry " + i);
            }
        }
        assertTrue(java.util.Arrays.stream(data.topk(0, 50)).anyMatch(e -> e >= 6), "the draw names rank 3's experts");
        assertArrayEquals(data.weights(1, 50), masked.weights(1, 50), "weights unchanged");
        short[] a = new short[16], b = new short[16];
        data.row(2, 5, a);
        masked.row(2, 5, b);
        assertArrayEquals(a, b, "rows unchanged");
    }

    @Test
    void noActiveRankLeftIsRefusedInOneLine() {
        String err = stderrOf(() -> Bench.run("bench", "moe", "-n", "2", "--inactive", "2", "--no-verify"));
        assertTrue(err.contains("--inactive 2 must be 0 or leave at least one of the 2 ranks active"), err);
    }

    /** shm has no active-rank mask: every rank stops with the reason before it changes its buffer. */
    @Test
    void aBackendWithoutTheMaskIsNamed() {
        String err = stderrOf(() -> Bench.run(
                "bench",
                "moe",
                "-n",
                "2",
                "--backend",
                "shm",
                "--inactive",
                "1",
                "--tokens",
                "16",
                "--hidden",
                "128",
                "--experts",
                "4",
                "--topk",
                "2",
                "--ll-tokens",
                "4",
                "--iters",
                "1",
                "--ll-iters",
                "1"));
        assertTrue(err.contains("--inactive needs a backend with MOE_ACTIVE_MASK"), err);
    }

    private static String stderrOf(IntSupplier run) {
        PrintStream old = System.err;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setErr(new PrintStream(buf, true, StandardCharsets.UTF_8));
        int code;
        try {
            code = run.getAsInt();
        } finally {
            System.setErr(old);
        }
        String err = buf.toString(StandardCharsets.UTF_8);
        assertNotEquals(0, code, err);
        return err;
    }
}
