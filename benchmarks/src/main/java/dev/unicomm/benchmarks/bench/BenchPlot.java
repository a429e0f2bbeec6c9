package dev.unicomm.benchmarks.bench;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.text.DecimalFormat;
import java.text.FieldPosition;
import java.text.NumberFormat;
import java.text.ParsePosition;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.axis.ValueAxis;
import org.jfree.chart.plot.CombinedDomainXYPlot;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * {@code --plot FILE.png}: bandwidth (top) and latency (bottom) against message size, one line per
 * series (operation / backend / ranks, and the same-run reference dashed). Log scales on both axes;
 * points without a positive value are left out (log axes cannot show them).
 */
final class BenchPlot {
    private record Point(long bytes, double latencyUs, double gbps) {}

    /** Fixed colours, so a series has the same colour in both panels. */
    private static final Color[] PALETTE = {
        new Color(0x1f77b4), new Color(0xd62728), new Color(0x2ca02c), new Color(0xff7f0e), new Color(0x9467bd),
        new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f), new Color(0xbcbd22), new Color(0x17becf)
    };

    private static final java.awt.Shape[] SHAPES =
            org.jfree.chart.plot.DefaultDrawingSupplier.createStandardSeriesShapes();

    private final Map<String, List<Point>> series = new LinkedHashMap<>();
    private final Map<String, Boolean> reference = new LinkedHashMap<>();
    private final String sizeLabel;
    private final String latencyLabel;

    /** A plot against message size. */
    BenchPlot() {
        this("message size", "latency (µs)");
    }

    /** A plot against another byte count ({@code sizeLabel}, e.g. bytes received per rank), with its own time axis label. */
    BenchPlot(String sizeLabel, String latencyLabel) {
        this.sizeLabel = sizeLabel;
        this.latencyLabel = latencyLabel;
    }

    /** Adds one measured point to {@code name} ({@code isReference}: drawn dashed). */
    void add(String name, boolean isReference, long bytes, double latencyUs, double gbps) {
        if (bytes <= 0) return;
        series.computeIfAbsent(name, k -> new ArrayList<>()).add(new Point(bytes, latencyUs, gbps));
        reference.putIfAbsent(name, isReference);
    }

    boolean isEmpty() {
        return series.isEmpty();
    }

    /** Writes the chart as a PNG of {@code width x height} pixels. */
    void write(Path png, String title, int width, int height) throws IOException {
        series.values()
                .removeIf(points ->
                        points.stream().map(Point::bytes).distinct().count() < 2); // single-size figures are no curve
        if (series.isEmpty())
            throw new IllegalStateException("nothing to plot: no operation was measured at two or more sizes");
        System.setProperty("java.awt.headless", "true");
        LogAxis size = new LogAxis(sizeLabel);
        size.setBase(2);
        size.setNumberFormatOverride(new SizeFormat());
        long minBytes = series.values().stream()
                .flatMap(List::stream)
                .mapToLong(Point::bytes)
                .min()
                .orElse(1);
        long maxBytes = series.values().stream()
                .flatMap(List::stream)
                .mapToLong(Point::bytes)
                .max()
                .orElse(1);
        // Up to 16 powers of two: a tick at each (the automatic unit would put ticks at half powers, e.g. 11585 B).
        if (maxBytes / (double) minBytes <= 1 << 16) size.setTickUnit(new NumberTickUnit(1));
        CombinedDomainXYPlot plot = new CombinedDomainXYPlot(size);
        plot.setGap(12);
        plot.add(panel("bandwidth (GB/s)", true), 1);
        plot.add(panel(latencyLabel, false), 1);
        JFreeChart chart = new JFreeChart(title, new Font("SansSerif", Font.BOLD, 16), plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        Path parent = png.toAbsolutePath().getParent();
        if (parent != null) Files.createDirectories(parent);
        try {
            ChartUtils.saveChartAsPNG(png.toFile(), chart, width, height);
        } catch (RuntimeException | LinkageError | InternalError e) {
            // Text needs fonts: a JDK on a host without fontconfig fonts fails here (e.g. "Fontconfig head is null").
            Files.deleteIfExists(png);
            throw new IllegalStateException(
                    "--plot could not draw " + png + ": the JDK's font/graphics setup failed (" + e
                            + "). The figures are in the table (and --csv). Install fonts (Debian/Ubuntu: apt-get install -y fontconfig "
                            + "fonts-dejavu-core), or point -Dsun.awt.fontconfig at a fontconfig.properties naming TTF files",
                    e);
        }
    }

    private XYPlot panel(String label, boolean bandwidth) {
        XYSeriesCollection data = new XYSeriesCollection();
        XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
        int i = 0;
        for (Map.Entry<String, List<Point>> e : series.entrySet()) {
            XYSeries s = new XYSeries(e.getKey(), true, false);
            for (Point p : e.getValue()) {
                double y = bandwidth ? p.gbps() : p.latencyUs();
                if (y > 0) s.addOrUpdate(p.bytes(), y);
            }
            data.addSeries(s);
            renderer.setSeriesPaint(i, PALETTE[i % PALETTE.length]);
            renderer.setSeriesShape(i, SHAPES[i % SHAPES.length]); // same marker in both panels, as in the legend
            if (reference.get(e.getKey()))
                renderer.setSeriesStroke(
                        i,
                        new BasicStroke(
                                1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
            else renderer.setSeriesStroke(i, new BasicStroke(2f));
            renderer.setSeriesVisibleInLegend(i, bandwidth); // one legend for both panels
            i++;
        }
        double lo = Double.MAX_VALUE, hi = 0;
        for (List<Point> points : series.values())
            for (Point p : points) {
                double v = bandwidth ? p.gbps() : p.latencyUs();
                if (v > 0) {
                    lo = Math.min(lo, v);
                    hi = Math.max(hi, v);
                }
            }
        ValueAxis y = valueAxis(label, lo, hi);
        XYPlot p = new XYPlot(data, null, y, renderer);
        p.setBackgroundPaint(Color.WHITE);
        p.setDomainGridlinePaint(Color.LIGHT_GRAY);
        p.setRangeGridlinePaint(Color.LIGHT_GRAY);
        return p;
    }

    /**
     * The value axis for data from {@code lo} to {@code hi}: log scale with a tick per decade over two
     * decades or more; per power of two from 8x (a decade axis would show one or two labels); linear
     * from zero below that, where a log scale has no readable ticks.
     */
    private static ValueAxis valueAxis(String label, double lo, double hi) {
        if (hi <= 0 || hi / lo < 8) {
            NumberAxis linear = new NumberAxis(label);
            linear.setAutoRangeIncludesZero(true);
            return linear;
        }
        LogAxis log = new LogAxis(label);
        log.setSmallestValue(1e-4);
        if (hi / lo < 100) log.setBase(2);
        log.setTickUnit(new NumberTickUnit(1));
        log.setNumberFormatOverride(new DecimalFormat("0.####"));
        return log;
    }

    /** Axis labels as sizes: 8 B, 4 KiB, 16 MiB. */
    private static final class SizeFormat extends NumberFormat {
        @Override
        public StringBuffer format(double v, StringBuffer to, FieldPosition pos) {
            return to.append(BenchReport.size(Math.round(v)));
        }

        @Override
        public StringBuffer format(long v, StringBuffer to, FieldPosition pos) {
            return to.append(BenchReport.size(v));
        }

        @Override
        public Number parse(String source, ParsePosition pos) {
            return null; // labels are never parsed back
        }
    }
}
