package dev.unicomm.cli.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.cli.Main;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import javax.imageio.ImageIO;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MoeBenchCommandTest {
    @TempDir Path tmp;

    /** The whole command with two real ranks on tiny shapes: every operation measured and verified against the reference. */
    @Test void benchMoeRunsVerifiesAndWritesCsv() throws Exception {
        Path csv = tmp.resolve("moe.csv");
        PrintStream old = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true));
        int code;
        try {
            code = Main.run("bench", "moe", "-n", "2", "--tokens", "64", "--hidden", "256", "--experts", "8", "--topk", "2",
                    "--ll-tokens", "8", "--iters", "1", "--ll-iters", "1", "--csv", csv.toString());
        } finally {
            System.setOut(old);
        }
        String out = buf.toString();
        assertEquals(0, code, out);
        assertTrue(out.contains("normal dispatch fp8") && out.contains("ll combine") && out.contains("low-latency dispatch + combine"), out);
        List<String> lines = Files.readAllLines(csv);
        assertEquals(7, lines.size(), String.join("\n", lines)); // header + 6 operations (hidden 256: FP8 dispatch in both modes)
        for (String l : lines.subList(1, lines.size())) {
            String[] f = l.split(",");
            assertEquals("yes", f[8], "verified: " + l);
            assertTrue(Double.parseDouble(f[3]) > 0 && Double.parseDouble(f[5]) > 0, "time and bound: " + l);
            assertTrue(Long.parseLong(f[2]) > 0, "bytes: " + l);
        }
    }

    /** A sweep over two token counts: one job each, a plot of both points per operation, and a JFR file per job and rank. */
    @Test void benchMoeSweepPlotsAndRecords() throws Exception {
        Path csv = tmp.resolve("moe.csv"), png = tmp.resolve("moe.png"), jfr = tmp.resolve("moe.jfr");
        PrintStream old = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true));
        int code;
        try {
            code = Main.run("bench", "moe", "-n", "2", "--mode", "normal", "--tokens", "32,64", "--hidden", "256", "--experts", "8",
                    "--topk", "2", "--iters", "1", "--csv", csv.toString(), "--plot", png.toString(), "--plot-size", "640x480",
                    "--jfr", jfr.toString());
        } finally {
            System.setOut(old);
        }
        assertEquals(0, code, buf.toString());
        List<String> lines = Files.readAllLines(csv);
        assertEquals(7, lines.size(), String.join("\n", lines)); // header + 3 operations (dispatch, FP8 dispatch, combine) x 2 token counts
        assertEquals(List.of("32", "32", "32", "64", "64", "64"), lines.subList(1, 7).stream().map(l -> l.substring(l.lastIndexOf(',') + 1)).toList());
        BufferedImage img = ImageIO.read(png.toFile());
        assertEquals(640, img.getWidth());
        assertEquals(480, img.getHeight());
        for (String job : List.of("t32", "t64")) {
            for (int rank = 0; rank < 2; rank++) {
                Path file = tmp.resolve("moe-n2-" + job + "-rank" + rank + ".jfr");
                Set<String> types = RecordingFile.readAllEvents(file).stream().map(e -> e.getEventType().getName()).collect(Collectors.toSet());
                assertTrue(types.containsAll(Set.of("dev.unicomm.CommunicatorOpen", "dev.unicomm.Moe")), file + ": " + types);
            }
        }
    }

    @Test void plotWithoutASweepIsRejectedBeforeRunning() {
        PrintStream oldErr = System.err;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        System.setErr(new PrintStream(err, true));
        try {
            assertTrue(Main.run("bench", "moe", "--plot", tmp.resolve("x.png").toString()) != 0);
        } finally {
            System.setErr(oldErr);
        }
        assertTrue(err.toString().contains("several token counts"), err.toString());
    }

    @Test void badOptionsAreRejected() {
        PrintStream oldErr = System.err;
        System.setErr(new PrintStream(new ByteArrayOutputStream(), true));
        try {
            assertTrue(Main.run("bench", "moe", "-n", "3", "--experts", "8") != 0); // 8 experts over 3 ranks
            assertTrue(Main.run("bench", "moe", "--mode", "fast") != 0);
            assertTrue(Main.run("bench", "moe", "--iters", "0") != 0);
        } finally {
            System.setErr(oldErr);
        }
    }
}
