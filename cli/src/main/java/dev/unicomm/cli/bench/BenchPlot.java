package dev.unicomm.cli.bench;

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
import org.jfree.chart.axis.NumberTickUnit;
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
        new Color(0x8c564b), new Color(0xe377c2), new Color(0x7f7f7f), new Color(0xbcbd22), new Color(0x17becf)};

    private final Map<String, List<Point>> series = new LinkedHashMap<>();
    private final Map<String, Boolean> reference = new LinkedHashMap<>();
    private final String sizeLabel;
    private final String latencyLabel;

    /** A plot against message size. */
    BenchPlot() { this("message size", "latency (µs)"); }

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

    boolean isEmpty() { return series.isEmpty(); }

    /** Writes the chart as a PNG of {@code width x height} pixels. */
    void write(Path png, String title, int width, int height) throws IOException {
        series.values().removeIf(points -> points.stream().map(Point::bytes).distinct().count() < 2); // single-size figures are no curve
        if (series.isEmpty()) throw new IllegalStateException("nothing to plot: no operation was measured at two or more sizes");
        System.setProperty("java.awt.headless", "true");
        LogAxis size = new LogAxis(sizeLabel);
        size.setBase(2);
        size.setNumberFormatOverride(new SizeFormat());
        CombinedDomainXYPlot plot = new CombinedDomainXYPlot(size);
        plot.setGap(12);
        plot.add(panel("bandwidth (GB/s)", true), 1);
        plot.add(panel(latencyLabel, false), 1);
        JFreeChart chart = new JFreeChart(title, new Font("SansSerif", Font.BOLD, 16), plot, true);
        chart.setBackgroundPaint(Color.WHITE);
        Path parent = png.toAbsolutePath().getParent();
        if (parent != null) Files.createDirectories(parent);
        ChartUtils.saveChartAsPNG(png.toFile(), chart, width, height);
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
            if (reference.get(e.getKey()))
                renderer.setSeriesStroke(i, new BasicStroke(1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
            else renderer.setSeriesStroke(i, new BasicStroke(2f));
            renderer.setSeriesVisibleInLegend(i, bandwidth); // one legend for both panels
            i++;
        }
        LogAxis y = new LogAxis(label);
        y.setSmallestValue(1e-4);
        double lo = Double.MAX_VALUE, hi = 0;
        for (Map.Entry<String, List<Point>> e : series.entrySet())
            for (Point p : e.getValue()) {
                double v = bandwidth ? p.gbps() : p.latencyUs();
                if (v > 0) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
            }
        // One tick per decade; within less than two decades that leaves one or two labels, so powers of two instead.
        if (hi > 0 && hi / lo < 100) y.setBase(2);
        y.setTickUnit(new NumberTickUnit(1));
        y.setNumberFormatOverride(new DecimalFormat("0.####"));
        XYPlot p = new XYPlot(data, null, y, renderer);
        p.setBackgroundPaint(Color.WHITE);
        p.setDomainGridlinePaint(Color.LIGHT_GRAY);
        p.setRangeGridlinePaint(Color.LIGHT_GRAY);
        return p;
    }

    /** Axis labels as sizes: 8 B, 4 KiB, 16 MiB. */
    private static final class SizeFormat extends NumberFormat {
        @Override public StringBuffer format(double v, StringBuffer to, FieldPosition pos) {
            return to.append(BenchReport.size(Math.round(v)));
        }

        @Override public StringBuffer format(long v, StringBuffer to, FieldPosition pos) {
            return to.append(BenchReport.size(v));
        }

        @Override public Number parse(String source, ParsePosition pos) {
            return null; // labels are never parsed back
        }
    }
}
