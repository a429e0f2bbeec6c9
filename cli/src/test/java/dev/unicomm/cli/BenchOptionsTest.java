package dev.unicomm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.unicomm.testsupport.ConsoleCapture.Captured;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Issue 45: bench sizes and counts out of range are one line naming the option, its value and the range; no job starts. */
@Timeout(120)
class BenchOptionsTest {
    private static void rejected(String expected, String... args) {
        Captured r = CliRunner.run(args);
        assertEquals(2, r.code(), r.out() + r.err());
        String name = "unicomm bench " + args[1];
        assertEquals(
                name + ": " + expected + " (--verbose prints the stack trace)",
                r.err().strip());
        assertEquals("", r.out());
    }

    @Test
    void outOfRangeSizesAndCountsAreOneLine() {
        rejected("--max-size 1T is out of range: allowed 1 B .. 16 GiB", "bench", "rma", "--max-size", "1T");
        rejected("--max-size 1T is out of range: allowed 1 B .. 16 GiB", "bench", "collectives", "--max-size", "1T");
        rejected(
                "--barrier-ranks 5000 is out of range: allowed 1 .. 1024", "bench", "rma", "--barrier-ranks", "2,5000");
        rejected("--topk 300 is out of range: allowed 1 .. 256", "bench", "moe", "--topk", "300");
        rejected("--hidden 0 is out of range: allowed 1 .. 65536", "bench", "moe", "--hidden", "0");
        rejected("--block-sizes 1T is out of range: allowed 1 B .. 16 GiB", "bench", "p2p", "--block-sizes", "8K,1T");
    }
}
