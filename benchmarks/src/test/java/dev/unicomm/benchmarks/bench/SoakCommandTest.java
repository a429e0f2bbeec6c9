package dev.unicomm.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@code unicomm bench soak} with real ranks: a short clean run, and a run whose data is corrupted on purpose. */
@Timeout(600)
class SoakCommandTest {
    private static final Pattern TOTAL = Pattern.compile("total\\s+(\\d+)\\s+(\\d+)\\s+(\\d+)");

    private static String run(int[] code, String... args) {
        PrintStream old = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            code[0] = Bench.run(args);
        } finally {
            System.setOut(old);
        }
        String out = buf.toString(StandardCharsets.UTF_8);
        System.out.println("[reliability] soak " + String.join(" ", args) + "\n" + out);
        return out;
    }

    @Test
    void aShortFourRankSoakSeesNoMismatch() {
        int[] code = {-1};
        String out =
                run(code, "bench", "soak", "-n", "4", "--duration", "4s", "--max-block", "64K", "--timeout", "30s");
        assertEquals(0, code[0], out);
        assertTrue(out.contains("SOAK PASSED: 0 mismatches"), out);
        Matcher m = TOTAL.matcher(out);
        assertTrue(m.find(), out);
        assertTrue(Long.parseLong(m.group(1)) >= 5, "at least one round of every kind: " + out);
        assertTrue(Long.parseLong(m.group(2)) > 0, out);
        assertEquals(0, Long.parseLong(m.group(3)), out);
    }

    @Test
    void corruptedDataIsCountedAndFailsTheRun() {
        int[] code = {-1};
        String out = run(code, "bench", "soak", "-n", "2", "--ops", "12", "--max-block", "4K", "--corrupt-every", "1");
        assertEquals(1, code[0], out);
        Matcher m = TOTAL.matcher(out);
        assertTrue(m.find(), out);
        assertEquals(12, Long.parseLong(m.group(1)), out);
        assertEquals(
                3, Long.parseLong(m.group(3)), "rounds 0, 5 and 10 are puts, each corrupted once on rank 0: " + out);
        assertTrue(out.contains("MISMATCH rank 0 round 0: put of"), out);
        assertTrue(out.contains("SOAK FAILED: 3 mismatches"), out);
    }

    @Test
    void badOptionsAreExplained() {
        var e = assertThrows(IllegalArgumentException.class, () -> SoakCommand.parseDuration("--duration", "soon"));
        assertTrue(e.getMessage().contains("'soon'"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SoakCommand.parseDuration("--duration", "0s"));
        assertEquals(90_000, SoakCommand.parseDuration("--duration", "90").toMillis());
    }
}
