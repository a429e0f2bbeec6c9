package dev.unicomm.benchmarks.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --plot draws a real PNG from benchmark rows; the progress indicator counts rows and renders a bar. */
class PlotAndProgressTest {
    @TempDir
    Path dir;

    @Test
    void plotOfRmaRowsIsAPngOfTheRequestedSizeWithContent() throws Exception {
        List<BenchRow> rows = List.of(
                new BenchRow("put+quiet", 2, 8, 1000, 300, "MemorySegment.copy", 20),
                new BenchRow("put+quiet", 2, 4096, 1000, 600, "MemorySegment.copy", 150),
                new BenchRow("get", 2, 8, 1000, 250, "MemorySegment.copy", 20),
                new BenchRow("get", 2, 4096, 1000, 500, "MemorySegment.copy", 150),
                new BenchRow("barrier", 2, 0, 1000, 900, "", 0));
        BenchPlot plot = RmaBenchCommand.plot(rows, "shm");
        PlotOption option = new PlotOption();
        option.file = dir.resolve("rma.png");
        option.size = "640x480";
        option.write(plot, "test");
        BufferedImage img = ImageIO.read(option.file.toFile());
        assertEquals(640, img.getWidth());
        assertEquals(480, img.getHeight());
        Set<Integer> colours = new HashSet<>();
        for (int y = 0; y < img.getHeight(); y += 3)
            for (int x = 0; x < img.getWidth(); x += 3) colours.add(img.getRGB(x, y));
        assertTrue(colours.size() > 5, "a chart with several coloured lines, got " + colours.size() + " colours");
    }

    @Test
    void badPlotOptionsAreRejectedWithTheRule() {
        PlotOption option = new PlotOption();
        option.file = dir.resolve("x.png");
        option.size = "big";
        var e = assertThrows(
                IllegalArgumentException.class,
                () -> option.write(RmaBenchCommand.plot(List.of(new BenchRow("get", 2, 8, 1, 1, "", 0)), "shm"), "t"));
        assertTrue(e.getMessage().contains("WIDTHxHEIGHT"), e.getMessage());
        option.size = "800x600";
        option.file = dir.resolve("x.svg");
        assertThrows(
                IllegalArgumentException.class,
                () -> option.write(RmaBenchCommand.plot(List.of(new BenchRow("get", 2, 8, 1, 1, "", 0)), "shm"), "t"));
        assertThrows(IllegalStateException.class, () -> new BenchPlot().write(dir.resolve("e.png"), "t", 400, 400));
    }

    @Test
    void timedProgressShowsElapsedAgainstTheDuration() {
        try (Progress p = new Progress(
                "bench soak",
                0,
                60_000,
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                false)) {
            assertEquals("bench soak [#####.........................] 10/60 s", p.render(10_000));
            assertEquals("bench soak [##############################] 75/60 s", p.render(75_000));
        }
    }

    @Test
    void progressCountsMarkedLinesAndDrawsABar() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try (Progress p = new Progress("bench rma", 4, new PrintStream(err, true, StandardCharsets.UTF_8), false)) {
            OutputStream out = p.counting(captured, "BENCH,");
            out.write("[0] BENCH,put,2,8\n[0] note\n[0] BENCH,get,2,8\n".getBytes(StandardCharsets.UTF_8));
            assertEquals(2, p.rows());
            assertEquals("bench rma [###############...............] 2/4 rows  12 s", p.render(12_000));
        }
        assertEquals("[0] BENCH,put,2,8\n[0] note\n[0] BENCH,get,2,8\n", captured.toString(StandardCharsets.UTF_8));
        assertEquals("", err.toString(StandardCharsets.UTF_8), "quiet for the first seconds");
    }
}
