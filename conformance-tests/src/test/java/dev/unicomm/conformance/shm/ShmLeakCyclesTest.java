package dev.unicomm.conformance.shm;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommConfig;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Unicomm;
import dev.unicomm.conformance.Leaks;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.management.ObjectName;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * 1,000 open/close cycles of a shm communicator with heap allocations (one buffer deliberately left
 * open at close) keep this process flat: file descriptors, threads, heap files, mappings of heap
 * files, shared-memory pages resident (RssShmem) and, when the JVM runs with
 * {@code -XX:NativeMemoryTracking=summary} (this module's surefire does), the JVM's native memory
 * outside the Java heap, code cache, JIT arenas and GC. Once with one rank, once with two ranks in two threads
 * over a real TCP rendezvous store (a new store, port and sockets every cycle).
 */
@Timeout(600)
class ShmLeakCyclesTest {
    static final int WARMUP = 50;
    /** Heap files go to a tmpfs folder when there is one, so RssShmem sees their pages. */
    @TempDir(factory = ShmTempDirs.class)
    Path dir;

    @Test
    void oneRankCyclesStayFlat() throws Exception {
        Assumptions.assumeTrue(Leaks.supported(), "needs Linux /proc");
        CommConfig cfg = new CommConfig(
                "shm",
                0,
                1,
                0,
                null,
                0,
                null,
                false,
                Duration.ofSeconds(20),
                4 << 20,
                Map.of("unicomm.shm.dir", dir.toString()));
        measure("1 rank", 1000, () -> cycle(cfg));
    }

    @Test
    void twoRankCyclesOverTcpStayFlat() throws Exception {
        Assumptions.assumeTrue(Leaks.supported(), "needs Linux /proc");
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            measure("2 ranks (threads, TCP store)", 500, () -> {
                int port = freePort();
                List<CompletableFuture<Void>> ranks = new ArrayList<>();
                for (int r = 0; r < 2; r++) {
                    CommConfig cfg = new CommConfig(
                            "shm",
                            r,
                            2,
                            r,
                            "127.0.0.1",
                            port,
                            "leak-test-token",
                            false,
                            Duration.ofSeconds(20),
                            1 << 20,
                            Map.of("unicomm.shm.dir", dir.toString()));
                    ranks.add(CompletableFuture.runAsync(() -> cycle(cfg), pool));
                }
                for (CompletableFuture<Void> f : ranks) f.get(60, TimeUnit.SECONDS);
            });
        } finally {
            pool.shutdownNow();
        }
    }

    /** One open/close with collective allocations; the last buffer stays open and is released by close. */
    static void cycle(CommConfig cfg) {
        try (Communicator c = Unicomm.connect(cfg)) {
            try (SymmetricBuffer a = c.heap().allocate(4096);
                    SymmetricBuffer b = c.heap().allocate(256 << 10)) {
                a.segment().set(ValueLayout.JAVA_LONG, 0, c.rank());
                b.segment().fill((byte) 7);
            }
            SymmetricBuffer kept = c.heap().allocate(64 << 10);
            kept.segment().set(ValueLayout.JAVA_LONG, 8, 42);
            c.barrier();
        }
    }

    interface Cycle {
        void run() throws Exception;
    }

    record Snapshot(int fds, int threads, int heapFiles, long heapMappings, long rssShmemKb, long nativeKb) {}

    void measure(String what, int cycles, Cycle cycle) throws Exception {
        for (int i = 0; i < WARMUP; i++) cycle.run();
        Snapshot before = settle();
        long t0 = System.nanoTime();
        for (int i = 0; i < cycles; i++) cycle.run();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        Snapshot after = settle();
        System.out.println(
                "[reliability] leak cycles, " + what + ": " + cycles + " cycles in " + ms + " ms; before " + before
                        + "; after " + after + "; native delta "
                        + (after.nativeKb() < 0 ? "n/a (NMT off)" : (after.nativeKb() - before.nativeKb()) + " KB")
                        + "; NMT categories before " + nmtAreas());
        assertTrue(
                after.fds() <= before.fds() + 2,
                what + ": file descriptors grew: " + before + " -> " + after + "\n" + Leaks.fds());
        assertTrue(
                after.threads() <= before.threads() + 1,
                what + ": threads grew: " + before + " -> " + after + "\n" + Leaks.threads());
        assertTrue(after.heapFiles() == 0, what + ": heap files left in " + dir + ": " + after.heapFiles());
        assertTrue(after.heapMappings() == 0, what + ": heap files still mapped: " + after.heapMappings());
        assertTrue(
                after.rssShmemKb() <= before.rssShmemKb() + 4096, what + ": RssShmem grew: " + before + " -> " + after);
        if (before.nativeKb() >= 0)
            assertTrue(
                    after.nativeKb() <= before.nativeKb() + 8 * 1024,
                    what + ": native memory (NMT, without heap, code, JIT, GC) grew: " + before + " -> " + after);
    }

    /** A snapshot once asynchronous clean-up (store threads, closing sockets) has had up to 3 s to finish. */
    Snapshot settle() throws Exception {
        Snapshot s = snapshot();
        for (int i = 0; i < 30; i++) {
            System.gc();
            Thread.sleep(100);
            Snapshot n = snapshot();
            if (n.fds() >= s.fds() && n.threads() >= s.threads() && i > 2) return n;
            s = n;
        }
        return s;
    }

    Snapshot snapshot() throws IOException {
        int files;
        try (Stream<Path> s = Files.list(dir)) {
            files = (int) s.count();
        }
        long mappings;
        try (Stream<String> maps = Files.lines(Path.of("/proc/self/maps"))) {
            mappings = maps.filter(l -> l.contains(dir.toString())).count();
        }
        return new Snapshot(
                Leaks.fds().size(), Leaks.threads().size(), files, mappings, statusKb("RssShmem"), nativeKb());
    }

    static long statusKb(String field) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
            if (line.startsWith(field + ":")) return Long.parseLong(line.replaceAll("\\D+", ""));
        }
        return 0;
    }

    private static final Pattern NMT_TOTAL = Pattern.compile("Total: reserved=\\d+KB, committed=(\\d+)KB");
    private static final Pattern NMT_AREA = Pattern.compile(
            "-\\s+(Java Heap|Code|Arena Chunk|Compiler|GC|Native Memory Tracking) \\(reserved=\\d+KB, committed=(\\d+)KB");

    /**
     * NMT's committed total in KB without what the JVM grows on its own (Java heap, code cache, JIT
     * compiler arenas, GC structures, NMT itself); -1 when NMT is off.
     */
    static long nativeKb() {
        String summary;
        try {
            summary = (String) ManagementFactory.getPlatformMBeanServer()
                    .invoke(
                            new ObjectName("com.sun.management:type=DiagnosticCommand"),
                            "vmNativeMemory",
                            new Object[] {new String[] {"summary"}},
                            new String[] {String[].class.getName()});
        } catch (Exception e) {
            return -1;
        }
        Matcher total = NMT_TOTAL.matcher(summary);
        if (!total.find()) return -1;
        long kb = Long.parseLong(total.group(1));
        Matcher area = NMT_AREA.matcher(summary);
        while (area.find()) kb -= Long.parseLong(area.group(2));
        return kb;
    }

    /** NMT committed KB by category, for the printed figures. */
    static Map<String, Long> nmtAreas() {
        Map<String, Long> m = new java.util.TreeMap<>();
        try {
            String summary = (String) ManagementFactory.getPlatformMBeanServer()
                    .invoke(
                            new ObjectName("com.sun.management:type=DiagnosticCommand"),
                            "vmNativeMemory",
                            new Object[] {new String[] {"summary"}},
                            new String[] {String[].class.getName()});
            Matcher a = Pattern.compile("-\\s+([A-Za-z ]+?) \\(reserved=\\d+KB, committed=(\\d+)KB")
                    .matcher(summary);
            while (a.find()) m.put(a.group(1), Long.parseLong(a.group(2)));
        } catch (Exception e) {
            // NMT off
        }
        return m;
    }

    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
