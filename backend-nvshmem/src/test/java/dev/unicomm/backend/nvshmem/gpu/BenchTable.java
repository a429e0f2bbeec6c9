package dev.unicomm.backend.nvshmem.gpu;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Joins the C reference's and the Java benchmark's CSV lines ({@code ref|java,op,bytes,iters,us,GB/s})
 * into one table with the ratio per row, and checks the issue-7 targets: Java put bandwidth at least
 * 0.95x C's from 1 MiB up, and per-call host overhead of a small stream-ordered put within 2 us of C's.
 */
public final class BenchTable {
    record Row(double us, double gbps) {}

    public static void main(String[] args) throws IOException {
        Map<String, Row> ref = new TreeMap<>(), java = new TreeMap<>();
        for (String line : Files.readAllLines(Path.of(args[0]))) {
            String[] f = line.split(",");
            if (f.length != 6) continue;
            String key = f[1] + "," + f[2];
            (f[0].equals("ref") ? ref : java).put(key, new Row(Double.parseDouble(f[4]), Double.parseDouble(f[5])));
        }
        System.out.printf(Locale.ROOT, "%-13s %10s %12s %10s %12s %10s %8s %10s%n", "op", "bytes", "C us/op", "C GB/s",
                "Java us/op", "Java GB/s", "C/Java", "Java-C us");
        double worstBig = Double.MAX_VALUE, issueDelta = Double.NaN;
        for (String op : new String[] {"put_bw", "get_bw", "put_issue", "put_blocking"}) {
            for (long bytes = 8; bytes <= 1L << 30; bytes *= 2) {
                String key = op + "," + bytes;
                Row c = ref.get(key), j = java.get(key);
                if (c == null || j == null) continue;
                double ratio = c.us() / j.us();
                System.out.printf(Locale.ROOT, "%-13s %10d %12.3f %10.2f %12.3f %10.2f %8.3f %10.3f%n", op, bytes, c.us(), c.gbps(),
                        j.us(), j.gbps(), ratio, j.us() - c.us());
                if (op.equals("put_bw") && bytes >= 1 << 20) worstBig = Math.min(worstBig, ratio);
                if (op.equals("put_issue") && bytes == 8) issueDelta = j.us() - c.us();
            }
        }
        System.out.printf(Locale.ROOT, "target 1: put bandwidth >= 1 MiB, worst Java/C = %.3f (need >= 0.95): %s%n", worstBig,
                worstBig >= 0.95 ? "MET" : "NOT MET");
        System.out.printf(Locale.ROOT, "target 2: 8-byte stream-ordered put, Java - C host time = %.3f us (need <= 2): %s%n", issueDelta,
                issueDelta <= 2 ? "MET" : "NOT MET");
    }
}
