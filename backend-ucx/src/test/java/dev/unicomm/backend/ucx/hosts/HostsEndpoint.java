package dev.unicomm.backend.ucx.hosts;

import dev.unicomm.api.Endpoint;
import dev.unicomm.api.EndpointOptions;
import dev.unicomm.api.Memory;
import dev.unicomm.api.Unicomm;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/**
 * One side of a ucx endpoint pair across two bed hosts; the infos travel through files in a directory both
 * hosts see (the bed's hosts are network namespaces of one machine). {@code target DIR}: registers 80 MiB,
 * posts receives, checks what the initiator wrote, sent and read. {@code initiator DIR [bench]}: batched
 * WRITE and READ, WRITE with immediate, SEND; with {@code bench}, then WRITE and READ bandwidth per block size.
 * Each prints {@code PASS <role>} (and {@code BENCH} lines) and exits 0, or prints what failed and exits 1.
 */
public final class HostsEndpoint {
    private HostsEndpoint() {}

    private static final long SIZE = 80L << 20;
    private static final int BLOCK = 4096, BLOCKS = 256;

    public static void main(String[] args) throws Exception {
        String role = args[0];
        Path dir = Path.of(args[1]);
        boolean bench = args.length > 2 && args[2].equals("bench");
        EndpointOptions o = EndpointOptions.defaults().withDevice("eth0").withTimeout(Duration.ofSeconds(60));
        try (Arena arena = Arena.ofShared();
                Endpoint ep = Unicomm.endpoints("ucx").open(o)) {
            MemorySegment seg = arena.allocate(SIZE, 4096);
            ep.registerRegion("buf", Memory.of(seg));
            publish(dir.resolve(role + ".info"), ep.localInfo());
            ep.connect(await(dir.resolve((role.equals("target") ? "initiator" : "target") + ".info")));
            if (role.equals("target")) target(ep, seg, dir);
            else initiator(ep, seg, dir, bench);
            System.out.println("PASS " + role);
        } catch (Throwable t) {
            System.out.println("FAIL " + t);
            t.printStackTrace(System.out);
            System.exit(1);
        }
    }

    private static byte pattern(long i, int seed) {
        return (byte) (i * 13 + seed);
    }

    private static void target(Endpoint ep, MemorySegment seg, Path dir) throws Exception {
        for (long i = 0; i < BLOCKS * BLOCK; i++)
            seg.set(ValueLayout.JAVA_BYTE, (SIZE / 2) + i, pattern(i, 5)); // what the initiator reads
        CompletableFuture<Endpoint.Received> imm = ep.recv("buf", SIZE - 64, 64);
        CompletableFuture<Endpoint.Received> msg = ep.recv("buf", SIZE - 8192, 4096);
        publish(dir.resolve("target.ready"), new byte[0]);
        Endpoint.Received first = ep.await(imm);
        check(
                first.immediate().orElse(0) == 0x5EED && first.bytes() == 4096,
                "write-with-immediate arrived as " + first);
        for (long i = 0; i < BLOCKS * BLOCK; i++)
            check(seg.get(ValueLayout.JAVA_BYTE, i) == pattern(i, 1), "written byte " + i);
        for (long i = 0; i < 4096; i++)
            check(seg.get(ValueLayout.JAVA_BYTE, (SIZE / 4) + i) == pattern(i, 2), "immediate's byte " + i);
        Endpoint.Received second = ep.await(msg);
        check(second.immediate().isEmpty() && second.bytes() == 4096, "send arrived as " + second);
        for (long i = 0; i < 4096; i++)
            check(seg.get(ValueLayout.JAVA_BYTE, SIZE - 8192 + i) == pattern(i, 3), "sent byte " + i);
        await(dir.resolve("initiator.done")); // keep serving its reads (and benchmark) until it is done
    }

    private static void initiator(Endpoint ep, MemorySegment seg, Path dir, boolean bench) throws Exception {
        await(dir.resolve("target.ready"));
        long[] offs = new long[BLOCKS];
        for (int i = 0; i < BLOCKS; i++) offs[i] = (long) i * BLOCK;
        for (long i = 0; i < BLOCKS * BLOCK; i++) seg.set(ValueLayout.JAVA_BYTE, i, pattern(i, 1));
        ep.write("buf", offs, offs, BLOCK);
        long[] far = new long[BLOCKS];
        for (int i = 0; i < BLOCKS; i++) far[i] = SIZE / 2 + (long) i * BLOCK;
        ep.read("buf", far, far, BLOCK);
        for (long i = 0; i < BLOCKS * BLOCK; i++)
            check(seg.get(ValueLayout.JAVA_BYTE, SIZE / 2 + i) == pattern(i, 5), "read byte " + i);
        for (long i = 0; i < 4096; i++) seg.set(ValueLayout.JAVA_BYTE, SIZE / 4 + i, pattern(i, 2));
        ep.await(ep.writeWithImm("buf", SIZE / 4, SIZE / 4, 4096, 0x5EED));
        for (long i = 0; i < 4096; i++) seg.set(ValueLayout.JAVA_BYTE, SIZE - 4096 + i, pattern(i, 3));
        ep.await(ep.send("buf", SIZE - 4096, 4096));
        if (bench) bench(ep);
        publish(dir.resolve("initiator.done"), new byte[0]);
    }

    /** Per block size: trips of outstanding blocks (64 MiB per trip, at most 160 blocks), for ~1.5 s; MB/s = 1e6 bytes/s. */
    private static void bench(Endpoint ep) {
        for (long block = 8 << 10; block <= 64L << 20; block *= 2) {
            int n = (int) Math.max(1, Math.min(160, (64L << 20) / block));
            long[] offs = new long[n];
            for (int i = 0; i < n; i++) offs[i] = i * block;
            for (String op : new String[] {"write", "read"}) {
                if (op.equals("write")) ep.write("buf", offs, offs, block);
                else ep.read("buf", offs, offs, block); // warm-up trip
                long bytes = 0, t0 = System.nanoTime();
                int trips = 0;
                while (System.nanoTime() - t0 < 1_500_000_000L && trips < 10_000) {
                    if (op.equals("write")) ep.write("buf", offs, offs, block);
                    else ep.read("buf", offs, offs, block);
                    bytes += n * block;
                    trips++;
                }
                double s = (System.nanoTime() - t0) / 1e9;
                System.out.printf(
                        "BENCH op=%s block=%d blocks/trip=%d trips=%d MB/s=%.1f%n",
                        op, block, n, trips, bytes / s / 1e6);
            }
        }
    }

    private static void publish(Path file, byte[] bytes) throws Exception {
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        Files.write(tmp, bytes);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
    }

    private static byte[] await(Path file) throws Exception {
        long end = System.nanoTime() + 120_000_000_000L;
        while (!Files.exists(file)) {
            if (System.nanoTime() > end) throw new IllegalStateException("no " + file.getFileName() + " after 120 s");
            Thread.sleep(10);
        }
        return Files.readAllBytes(file);
    }

    private static void check(boolean ok, String what) {
        if (!ok) throw new AssertionError(what);
    }
}
