package dev.unicomm.benchmarks.bench;

import dev.unicomm.api.Endpoint;
import dev.unicomm.api.EndpointOptions;
import dev.unicomm.api.Endpoints;
import dev.unicomm.api.Memory;
import dev.unicomm.api.Unicomm;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code unicomm bench p2p}: DLSlime's transfer_bench for RDMA endpoints. An initiator and a target
 * endpoint on one device connect through their infos; for each block size the initiator issues
 * batches of {@code --batch} READs (or WRITEs) of one block each ("trips") for {@code --duration},
 * awaiting each batch. With {@code --perftest}, perftest's ib_read_bw / ib_write_bw run on the same
 * device and block size in the same run, and each row gets the ratio ours / perftest. {@code --plot}
 * draws throughput and time per trip against block size; {@code --jfr} records this process, with
 * one {@link P2pRowEvent} per row. With {@code --role initiator|target --exchange DIR} the two endpoints live
 * in two processes (e.g. on two hosts) that swap their infos through files in {@code DIR}.
 */
@Command(
        name = "p2p",
        mixinStandardHelpOptions = true,
        description =
                "RDMA endpoint READ/WRITE throughput (DLSlime transfer_bench table), optionally vs perftest in the same run.")
public final class P2pBenchCommand implements Callable<Integer> {

    @Option(
            names = "--backend",
            defaultValue = "rdma",
            description = "Backend providing endpoints (default: ${DEFAULT-VALUE}).")
    String backend;

    @Option(names = "--device", description = "RDMA device (default: the first with an ACTIVE port).")
    String device;

    @Option(
            names = "--target-device",
            description = "RDMA device of the target endpoint (default: --device): initiator and target on two devices"
                    + " that talk over a network, like DLSlime's transfer_bench between two hosts.")
    String targetDevice;

    @Option(names = "--target-gid-index", description = "GID index of the target endpoint (default: --gid-index).")
    Integer targetGidIndex;

    @Option(names = "--port", defaultValue = "1", description = "Port (default: ${DEFAULT-VALUE}).")
    int port;

    @Option(
            names = "--gid-index",
            defaultValue = "-1",
            description = "GID index (-1: a RoCE v2 GID; default: ${DEFAULT-VALUE}).")
    int gidIndex;

    @Option(names = "--qps", defaultValue = "1", description = "Queue pairs per endpoint (default: ${DEFAULT-VALUE}).")
    int qps;

    @Option(names = "--event", description = "Event-driven completions instead of busy polling.")
    boolean event;

    @Option(
            names = "--batch",
            defaultValue = "160",
            description = "Blocks per trip, all outstanding at once (default: ${DEFAULT-VALUE}).")
    int batch;

    @Option(
            names = "--block-sizes",
            defaultValue = "8K,16K,32K,64K,128K,256K,512K,1M,2M",
            split = ",",
            description = "Block sizes (K/M suffix = 1024 based; default: ${DEFAULT-VALUE}).")
    List<String> blockSizes;

    @Option(
            names = "--ops",
            defaultValue = "read,write",
            split = ",",
            description = "read and/or write (default: ${DEFAULT-VALUE}).")
    List<String> ops;

    @Option(names = "--duration", defaultValue = "3", description = "Seconds per row (default: ${DEFAULT-VALUE}).")
    double seconds;

    @Option(
            names = "--buffer",
            defaultValue = "64M",
            description = "Registered bytes per side; blocks wrap around in it (default: ${DEFAULT-VALUE}).")
    String buffer;

    @Option(
            names = "--perftest",
            description = "Also run perftest's ib_read_bw / ib_write_bw per row (same device, size, duration).")
    boolean perftest;

    @Option(
            names = "--perftest-host",
            defaultValue = "127.0.0.1",
            description = "Address perftest's client uses to reach its server (default: ${DEFAULT-VALUE}).")
    String perftestHost;

    @Option(
            names = "--role",
            description =
                    "With --exchange: this process is the 'initiator' (runs the rows, prints the table) or the "
                            + "'target' (serves them) of a pair of processes, e.g. on two hosts. Default: both endpoints in this process.")
    String role;

    @Option(
            names = "--exchange",
            paramLabel = "DIR",
            description = "With --role: an empty directory both processes see; the endpoints' "
                    + "infos and the initiator's end travel through files in it.")
    java.nio.file.Path exchange;

    @picocli.CommandLine.Mixin
    CsvOption csv = new CsvOption();

    @picocli.CommandLine.Mixin
    JfrOption jfr = new JfrOption();

    @picocli.CommandLine.Mixin
    PlotOption plot = new PlotOption();

    private static final double MIB = 1 << 20;

    /** One row of the table. */
    record Row(String op, int batch, long block, long trips, double seconds, double perftestMiBs) {
        double mib() {
            return (double) trips * batch * block / (1 << 20);
        }

        double latencyMs() {
            return seconds * 1000 / trips;
        }

        double mibPerS() {
            return mib() / seconds;
        }

        double ratio() {
            return perftestMiBs > 0 ? mibPerS() / perftestMiBs : Double.NaN;
        }
    }

    @Override
    public Integer call() throws Exception {
        BenchLimits.count("--batch", batch, 1, 1 << 16);
        BenchLimits.count("--qps", qps, 1, 1024);
        if (seconds <= 0) throw new IllegalArgumentException("--duration must be > 0, got " + seconds);
        for (String op : ops)
            if (!op.equals("read") && !op.equals("write"))
                throw new IllegalArgumentException("--ops takes read and/or write, got '" + op + "'");
        List<Long> blocks = blockSizes.stream()
                .map(b -> BenchLimits.size("--block-sizes", b, BenchLimits.MAX_SIZE))
                .toList();
        for (long b : blocks)
            if (b < 1) throw new IllegalArgumentException("--block-sizes entries must be >= 1 byte, got " + b);
        if (plot.wanted() && blocks.stream().distinct().count() < 2)
            throw new IllegalArgumentException(
                    "--plot draws throughput against block size: give two or more --block-sizes, got " + blockSizes);
        long bufBytes = Math.max(
                BenchLimits.size("--buffer", buffer, 4 * BenchLimits.MAX_SIZE),
                blocks.stream().mapToLong(Long::longValue).max().orElse(0));

        if ((role == null) != (exchange == null))
            throw new IllegalArgumentException("--role and --exchange go together (a pair of processes), got only "
                    + (role == null ? "--exchange" : "--role"));
        if (role != null && !role.equals("initiator") && !role.equals("target"))
            throw new IllegalArgumentException("--role is 'initiator' or 'target', got '" + role + "'");
        if (role != null && perftest)
            throw new IllegalArgumentException(
                    "--perftest runs ib_*_bw on this host only; run the reference between the hosts yourself");
        Endpoints endpoints = Unicomm.endpoints(backend);
        EndpointOptions o = EndpointOptions.defaults()
                .withPort(port)
                .withGidIndex(gidIndex)
                .withQueuePairs(qps)
                .withBusyPoll(!event)
                .withTimeout(Duration.ofSeconds(120));
        if (device != null) o = o.withDevice(device);
        EndpointOptions targetOptions = o.withGidIndex(targetGidIndex != null ? targetGidIndex : gidIndex);
        if (targetDevice != null) targetOptions = targetOptions.withDevice(targetDevice);
        if (role != null) return pair(endpoints, o, bufBytes, blocks);
        List<Row> rows = new ArrayList<>();
        String deviceName;
        try (BenchRecording recording = jfr.recordHere("p2p");
                Arena arena = Arena.ofShared();
                Endpoint initiator = endpoints.open(o);
                Endpoint target = endpoints.open(targetOptions);
                Progress progress = Progress.start("bench p2p", ops.size() * blocks.size())) {
            MemorySegment local = arena.allocate(bufBytes, 4096);
            MemorySegment remote = arena.allocate(bufBytes, 4096);
            local.fill((byte) 1);
            initiator.registerRegion("buffer", Memory.of(local));
            target.registerRegion("buffer", Memory.of(remote));
            target.connect(initiator.localInfo()); // out of band in real life: here both live in one process
            initiator.connect(target.localInfo());
            deviceName = (device != null ? device : initiator.toString())
                    + (targetDevice != null ? " -> " + targetDevice : "");
            rows(initiator, bufBytes, blocks, progress, rows);
        }
        jfr.reportHere();
        report(rows, deviceName);
        return 0;
    }

    /** Every row (op x block size) from {@code initiator}, each printed to stderr as it ends. */
    private void rows(Endpoint initiator, long bufBytes, List<Long> blocks, Progress progress, List<Row> rows)
            throws IOException, InterruptedException {
        for (String op : ops) {
            for (long block : blocks) {
                P2pRowEvent rowEvent = new P2pRowEvent();
                rowEvent.begin();
                Row r = run(initiator, op, block, bufBytes);
                commit(rowEvent, r);
                double ref = perftest ? perftest(op, block) : 0;
                r = new Row(r.op(), r.batch(), r.block(), r.trips(), r.seconds(), ref);
                rows.add(r);
                progress.row();
                System.err.printf(
                        Locale.ROOT,
                        "  %s %s: %.1f MiB/s%s%n",
                        op,
                        BenchReport.size(block),
                        r.mibPerS(),
                        perftest ? String.format(Locale.ROOT, ", perftest %.1f MiB/s", ref) : "");
            }
        }
    }

    /**
     * One side of a pair of processes: publishes this endpoint's info in {@code --exchange}, connects to the
     * other's; the target then serves until the initiator has written {@code initiator.done}, the initiator runs
     * the rows and prints the table.
     */
    private int pair(Endpoints endpoints, EndpointOptions o, long bufBytes, List<Long> blocks) throws Exception {
        java.nio.file.Files.createDirectories(exchange);
        String other = role.equals("initiator") ? "target" : "initiator";
        if (java.nio.file.Files.exists(exchange.resolve(role + ".info"))
                || java.nio.file.Files.exists(exchange.resolve("initiator.done")))
            throw new IllegalArgumentException(
                    "--exchange " + exchange + " holds an earlier run's files; give an empty directory");
        long limit =
                (long) ((seconds + 10) * ops.size() * blocks.size()) + 300; // seconds either side waits for the other
        List<Row> rows = new ArrayList<>();
        String deviceName;
        try (Arena arena = Arena.ofShared();
                Endpoint ep = endpoints.open(o)) {
            MemorySegment buf = arena.allocate(bufBytes, 4096);
            buf.fill((byte) 1);
            ep.registerRegion("buffer", Memory.of(buf));
            publish(exchange.resolve(role + ".info"), ep.localInfo());
            ep.connect(awaitFile(exchange.resolve(other + ".info"), limit));
            publish(exchange.resolve(role + ".connected"), new byte[0]);
            awaitFile(exchange.resolve(other + ".connected"), limit);
            if (role.equals("target")) {
                awaitFile(exchange.resolve("initiator.done"), limit);
                System.out.println("target served the initiator's rows (" + ep + ")");
                return 0;
            }
            deviceName = (device != null ? device : "") + " " + ep;
            try (Progress progress = Progress.start("bench p2p", ops.size() * blocks.size())) {
                rows(ep, bufBytes, blocks, progress, rows);
            } finally {
                publish(exchange.resolve("initiator.done"), new byte[0]);
            }
        }
        report(rows, deviceName.strip());
        return 0;
    }

    private static void publish(java.nio.file.Path file, byte[] bytes) throws IOException {
        java.nio.file.Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        java.nio.file.Files.write(tmp, bytes);
        java.nio.file.Files.move(tmp, file, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    private static byte[] awaitFile(java.nio.file.Path file, long limitSeconds)
            throws IOException, InterruptedException {
        long end = System.nanoTime() + limitSeconds * 1_000_000_000L;
        while (!java.nio.file.Files.exists(file)) {
            if (System.nanoTime() > end)
                throw new IllegalStateException(
                        "the other process wrote no " + file + " within " + limitSeconds + " s");
            Thread.sleep(10);
        }
        return java.nio.file.Files.readAllBytes(file);
    }

    /** The table, then the CSV and the plot if asked for. */
    private void report(List<Row> rows, String deviceName) throws IOException {
        print(rows, deviceName);
        if (csv.wanted()) {
            List<String> lines = new ArrayList<>();
            lines.add("op,batch,block_bytes,trips,mib,seconds,latency_ms_per_trip,mib_per_s,perftest_mib_per_s,ratio");
            for (Row r : rows)
                lines.add(String.format(
                        Locale.ROOT,
                        "%s,%d,%d,%d,%.3f,%.4f,%.6f,%.2f,%.2f,%.3f",
                        r.op(),
                        r.batch(),
                        r.block(),
                        r.trips(),
                        r.mib(),
                        r.seconds(),
                        r.latencyMs(),
                        r.mibPerS(),
                        r.perftestMiBs(),
                        perftest ? r.ratio() : Double.NaN));
            csv.write(lines);
        }
        if (plot.wanted()) plot.write(plot(rows, backend), "unicomm bench p2p (" + backend + ", " + deviceName + ")");
    }

    /** Ends {@code event} (begun before the row) with the row's figures. */
    static void commit(P2pRowEvent event, Row r) {
        if (!event.shouldCommit()) return;
        event.operation = r.op();
        event.blockBytes = r.block();
        event.batch = r.batch();
        event.trips = r.trips();
        event.bytes = r.trips() * r.batch() * r.block();
        event.mibPerSecond = r.mibPerS();
        event.commit();
    }

    /** Throughput (GB/s) and time per trip against block size, one line per operation; perftest's bandwidth dashed. */
    static BenchPlot plot(List<Row> rows, String backend) {
        BenchPlot p = new BenchPlot("block size", "time per trip (µs)");
        for (Row r : rows) {
            p.add(
                    r.op() + " (" + backend + ", trips of " + r.batch() + " blocks)",
                    false,
                    r.block(),
                    r.latencyMs() * 1e3,
                    r.mibPerS() * MIB / 1e9);
            if (r.perftestMiBs() > 0)
                p.add(
                        "perftest ib_" + r.op().toLowerCase(Locale.ROOT) + "_bw",
                        true,
                        r.block(),
                        0,
                        r.perftestMiBs() * MIB / 1e9);
        }
        return p;
    }

    /** One row: trips of {@code batch} blocks until the duration is spent (after one warm-up trip). */
    private Row run(Endpoint ep, String op, long block, long bufBytes) {
        long slots = bufBytes / block;
        long[] offsets = new long[batch];
        for (int i = 0; i < batch; i++) offsets[i] = (i % slots) * block;
        boolean read = op.equals("read");
        Runnable trip = read
                ? () -> ep.read("buffer", offsets, offsets, block)
                : () -> ep.write("buffer", offsets, offsets, block);
        trip.run();
        long trips = 0;
        long start = System.nanoTime();
        long end = start + (long) (seconds * 1e9);
        long now;
        do {
            trip.run();
            trips++;
            now = System.nanoTime();
        } while (now < end);
        return new Row(read ? "READ" : "WRITE", batch, block, trips, (now - start) / 1e9, 0);
    }

    /** perftest's average bandwidth in MiB/s (its "MB/sec" is 2^20 bytes per second) for one size. */
    private double perftest(String op, long block) throws IOException, InterruptedException {
        String tool = op.equals("read") ? "ib_read_bw" : "ib_write_bw";
        int secs = (int) Math.max(1, Math.round(seconds));
        // A fixed byte volume (iteration mode): perftest's duration mode reports 0 on soft-RoCE. At least 5
        // iterations (perftest's minimum): 48 MiB, or 5 blocks where a block is larger than 9.6 MiB.
        long iters = Math.max(5, Math.min(5000, (48L << 20) / block));
        List<String> common = new ArrayList<>(List.of(
                tool,
                "-i",
                Integer.toString(port),
                "-s",
                Long.toString(block),
                "-n",
                Long.toString(iters),
                "-F",
                "-q",
                Integer.toString(qps)));
        // The server plays the target (its device and GID), the client the initiator: ib_read_bw's client reads the
        // server's memory.
        List<String> serverCmd = new ArrayList<>(common);
        String serverDevice = targetDevice != null ? targetDevice : device;
        int serverGid = targetGidIndex != null ? targetGidIndex : gidIndex;
        if (serverDevice != null) serverCmd.addAll(List.of("-d", serverDevice));
        if (serverGid >= 0) serverCmd.addAll(List.of("-x", Integer.toString(serverGid)));
        Process server = new ProcessBuilder(serverCmd)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        try {
            Thread.sleep(1500); // the server must listen before the client connects
            List<String> client = new ArrayList<>(common);
            if (device != null) client.addAll(List.of("-d", device));
            if (gidIndex >= 0) client.addAll(List.of("-x", Integer.toString(gidIndex)));
            client.add(perftestHost);
            Process c = new ProcessBuilder(client).redirectErrorStream(true).start();
            String out = new String(c.getInputStream().readAllBytes());
            if (!c.waitFor(secs + 120L, java.util.concurrent.TimeUnit.SECONDS)) c.destroyForcibly();
            for (String line : out.split("\n")) {
                String[] f = line.trim().split("\\s+");
                if (f.length >= 4 && f[0].equals(Long.toString(block))) return Double.parseDouble(f[3]);
            }
            throw new IllegalStateException(
                    tool + " printed no result row for " + block + " bytes; its output:\n" + out);
        } finally {
            server.waitFor(5, java.util.concurrent.TimeUnit.SECONDS);
            if (server.isAlive()) server.destroyForcibly();
        }
    }

    private void print(List<Row> rows, String deviceName) {
        System.out.printf(
                Locale.ROOT,
                "P2P endpoints of %s (%s, %d QP, %s completions), batch %d, %.0f s per row%n",
                backend,
                deviceName,
                qps,
                event ? "event-driven" : "busy-polled",
                batch,
                seconds);
        System.out.printf(
                Locale.ROOT,
                "%-6s %10s %18s %12s %24s %13s %26s %19s%s%n",
                "Op",
                "Batch Size",
                "Block Size (Bytes)",
                "Total Trips",
                "Total Transferred (MiB)",
                "Duration (s)",
                "Average Latency (ms/trip)",
                "Throughput (MiB/s)",
                perftest ? String.format(Locale.ROOT, " %18s %6s", "perftest (MiB/s)", "ratio") : "");
        for (Row r : rows) {
            System.out.printf(
                    Locale.ROOT,
                    "%-6s %10d %,18d %,12d %,24.0f %13.4f %26.6f %,19.1f%s%n",
                    r.op(),
                    r.batch(),
                    r.block(),
                    r.trips(),
                    r.mib(),
                    r.seconds(),
                    r.latencyMs(),
                    r.mibPerS(),
                    perftest ? String.format(Locale.ROOT, " %,18.1f %5.2fx", r.perftestMiBs(), r.ratio()) : "");
        }
        if (perftest)
            System.out.println(
                    "perftest = ib_read_bw / ib_write_bw (BW average), same devices (server = target), block size and QPs,"
                            + " 48 MiB per size (5..5000 iterations),"
                            + " run right after each row; ratio = ours / perftest");
    }
}
