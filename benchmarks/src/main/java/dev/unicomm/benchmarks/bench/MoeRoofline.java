package dev.unicomm.benchmarks.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The same-run roofline of {@code unicomm bench moe} on GPU backends: the bandwidths the native
 * program {@code benchmarks/reference/nvlink_ref} measures on the job's GPUs just before the benchmark
 * (a copy kernel on every SM, and the copy engines), and each operation's floor from them. An
 * operation moves {@code remoteIn} bytes into this rank, {@code remoteOut} out of it and
 * {@code local} within its memory; the links carry each direction independently and the local
 * share needs only device memory, so no schedule can finish sooner than
 * {@code max(remoteIn / link, remoteOut / link, local / hbm)}, where {@code link} is the best
 * per-direction figure with every link loaded both ways at once and {@code hbm} the best
 * device-to-device copy. A fraction above 1 would mean the ceilings were measured too low.
 *
 * @param linkGbps best bytes per ns one PE received (or sent) with all PEs exchanging at once; 0 on one PE
 * @param hbmGbps  best device copy, bytes per ns
 * @param lines    the program's output lines (for the log)
 */
record MoeRoofline(double linkGbps, double hbmGbps, List<String> lines) {

    /** The floor in ns of an operation moving these bytes. */
    double floorNs(long remoteIn, long remoteOut, long local) {
        double ns = local / hbmGbps;
        if (remoteIn + remoteOut > 0) {
            if (linkGbps <= 0)
                throw new IllegalStateException(
                        "the roofline has no link bandwidth, but the operation moves bytes between ranks");
            ns = Math.max(ns, Math.max(remoteIn, remoteOut) / linkGbps);
        }
        return ns;
    }

    /** The best figures of {@code roof,kind,pe,peer,bytes,us,GB/s} lines (every PE's). */
    static MoeRoofline parse(List<String> lines) {
        double link = 0, hbm = 0;
        for (String line : lines) {
            String[] f = line.strip().split(",");
            if (f.length != 7 || !f[0].equals("roof")) continue;
            double gbps = Double.parseDouble(f[6]);
            switch (f[1]) {
                case "hbm_copy" -> hbm = Math.max(hbm, gbps);
                case "all_pull", "all_push", "all_ce" -> link = Math.max(link, gbps);
                default -> {} // per-pair figures: for the tables, not the floor (the operations load every link)
            }
        }
        if (hbm <= 0)
            throw new IllegalStateException(
                    "the roofline program printed no hbm_copy figure:\n" + String.join("\n", lines));
        return new MoeRoofline(link, hbm, List.copyOf(lines));
    }

    /** Runs {@code exe} as {@code ranks} processes (unique id through a temporary directory) and parses every PE's output. */
    static MoeRoofline measure(Path exe, int ranks, Map<String, String> env) {
        if (!Files.isExecutable(exe))
            throw new IllegalArgumentException(
                    "--roofline " + exe
                            + " is not an executable (build benchmarks/reference/nvlink_ref.cu with nvcc; scripts/gpu-stage.sh does)");
        Path dir = null;
        try {
            dir = Files.createTempDirectory("unicomm-roofline");
            List<Process> ps = new ArrayList<>();
            List<Path> logs = new ArrayList<>();
            for (int r = 0; r < ranks; r++) {
                Path log = dir.resolve("rank" + r + ".log");
                ProcessBuilder pb = new ProcessBuilder(exe.toString())
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile());
                pb.environment().putAll(env);
                pb.environment().put("UNICOMM_RANK", Integer.toString(r));
                pb.environment().put("UNICOMM_WORLD_SIZE", Integer.toString(ranks));
                pb.environment().put("UNICOMM_FILE_STORE", dir.toString());
                ps.add(pb.start());
                logs.add(log);
            }
            List<String> lines = new ArrayList<>();
            for (int r = 0; r < ranks; r++) {
                Process p = ps.get(r);
                if (!p.waitFor(5, TimeUnit.MINUTES)) {
                    for (Process q : ps) q.destroyForcibly();
                    throw new IllegalStateException("roofline rank " + r + " did not finish in 5 minutes");
                }
                if (p.exitValue() != 0)
                    throw new IllegalStateException("roofline rank " + r + " exited with " + p.exitValue() + ":\n"
                            + Files.readString(logs.get(r)));
                lines.addAll(Files.readAllLines(logs.get(r)));
            }
            return parse(lines);
        } catch (IOException e) {
            throw new IllegalStateException("running the roofline program " + exe + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running the roofline program");
        } finally {
            if (dir != null) removeTree(dir); // the ranks' logs (read above) and their store files
        }
    }

    /** Deletes {@code dir} and what is in it; what cannot be deleted stays (a temporary folder, not worth a failure). */
    private static void removeTree(Path dir) {
        try (var paths = Files.walk(dir)) {
            for (Path p : paths.sorted(java.util.Comparator.reverseOrder()).toList()) Files.deleteIfExists(p);
        } catch (IOException | java.io.UncheckedIOException e) {
            // left for the system's temporary-file cleaning
        }
    }

    String describe() {
        return String.format(
                Locale.ROOT,
                "roofline (same run, %s): links %.1f GB/s per direction per rank with every rank exchanging at once; "
                        + "device copy %.1f GB/s; floor = max(remote in, remote out) / link, local / copy",
                "benchmarks/reference/nvlink_ref",
                linkGbps,
                hbmGbps);
    }
}
