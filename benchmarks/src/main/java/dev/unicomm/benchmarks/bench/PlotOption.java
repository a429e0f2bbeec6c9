package dev.unicomm.benchmarks.bench;

import java.io.IOException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** {@code --plot FILE.png} (+ size) for the bench commands that sweep message sizes. */
public final class PlotOption {
    @Option(
            names = "--plot",
            paramLabel = "FILE.png",
            description =
                    "Also draw bandwidth and latency vs message size, one line per operation (and the same-run reference, dashed).")
    Path file;

    @Option(
            names = "--plot-size",
            defaultValue = "1000x800",
            paramLabel = "WxH",
            description = "Plot size in pixels (default: ${DEFAULT-VALUE}).")
    String size;

    boolean wanted() {
        return file != null;
    }

    void write(BenchPlot plot, String title) throws IOException {
        if (file == null) return;
        String[] wh = size.toLowerCase(java.util.Locale.ROOT).split("x");
        int w, h;
        try {
            if (wh.length != 2) throw new NumberFormatException(size);
            w = Integer.parseInt(wh[0].strip());
            h = Integer.parseInt(wh[1].strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "--plot-size must be WIDTHxHEIGHT in pixels (e.g. 1000x800), got '" + size + "'");
        }
        if (w < 200 || h < 200 || w > 10000 || h > 10000)
            throw new IllegalArgumentException(
                    "--plot-size must be between 200x200 and 10000x10000 pixels, got " + size);
        if (!file.getFileName().toString().toLowerCase(java.util.Locale.ROOT).endsWith(".png"))
            throw new IllegalArgumentException("--plot writes PNG: give a file name ending in .png, got " + file);
        plot.write(file, title, w, h);
        System.out.println("wrote " + file);
    }
}
