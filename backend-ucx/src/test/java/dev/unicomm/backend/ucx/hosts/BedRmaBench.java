package dev.unicomm.backend.ucx.hosts;

import dev.unicomm.api.Cmp;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.Memory;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Unicomm;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Two ranks, one per host, measured the way {@code ucx_perftest} measures the same four things, so the rows
 * sit beside its output: put and get bandwidth (a window of non-blocking operations, then a quiet; and put as one stream
 * with a quiet at the end, as {@code ucx_perftest}'s put_bw pipelines; MB = 2^20 B),
 * 8-byte put latency (ping-pong of blocking puts, each side waiting for the other's word: half a round trip, as
 * {@code ucp_put_lat}) and fetch-add latency (as {@code ucp_fadd}). Rank 1 only serves (waits in a barrier, or
 * answers the ping-pong). Prints {@code BENCH} lines; args: {@code LABEL SIZES(comma) ITERS_LAT}; {@code BED_ROWS} (e.g.
 * {@code lat}) picks rows among {@code bw,lat,fadd}.
 */
public final class BedRmaBench {
    private BedRmaBench() {}

    public static void main(String[] args) {
        String label = args[0];
        long[] sizes =
                Arrays.stream(args[1].split(",")).mapToLong(Long::parseLong).toArray();
        int latIters = Integer.parseInt(args[2]);
        long max = Arrays.stream(sizes).max().orElse(8);
        try (Communicator comm = Unicomm.connect();
                SymmetricBuffer buf = comm.heap().allocate(max, 4096);
                SymmetricBuffer words = comm.heap().allocate(64);
                Arena a = Arena.ofConfined()) {
            MemorySegment local = a.allocate(max, 4096);
            String rows =
                    System.getenv().getOrDefault("BED_ROWS", "bw,lat,fadd"); // which rows (an experiment's subset)
            if (rows.contains("bw")) {
                for (long s : sizes) bandwidth(comm, label, true, false, buf, local, s);
                for (long s : sizes) bandwidth(comm, label, true, true, buf, local, s);
                for (long s : sizes) bandwidth(comm, label, false, false, buf, local, s);
            }
            if (rows.contains("lat")) putLatency(comm, label, words, a, latIters);
            if (rows.contains("fadd")) faddLatency(comm, label, words, latIters);
        }
    }

    /**
     * {@code stream=false}: windows of 16 non-blocking operations, each followed by a quiet (OpenSHMEM benchmarks' uni_bw:
     * every window waits for the target's acknowledgements); {@code stream=true}: the same operations back to back and one
     * quiet at the end, as {@code ucx_perftest}'s put_bw (its sender bounds only operations not yet sent, and flushes once).
     */
    private static void bandwidth(
            Communicator comm,
            String label,
            boolean put,
            boolean stream,
            SymmetricBuffer buf,
            MemorySegment local,
            long size) {
        int window = 16;
        long total = Math.max(
                8L << 20, Math.min(256L << 20, size * 2000)); // enough bytes for a stable figure, bounded in time
        int windows = (int) Math.max(4, total / (size * window));
        comm.barrier();
        if (comm.rank() == 0) {
            Rma rma = comm.rma();
            Memory mem = Memory.of(local.asSlice(0, size));
            Runnable one = put ? () -> rma.putNbi(buf, 0, mem, 0, size, 1) : () -> rma.getNbi(mem, 0, buf, 0, size, 1);
            for (int i = 0; i < window; i++) one.run();
            rma.quiet();
            long cpu0 = progressThreadCpuMillis();
            long t0 = System.nanoTime();
            for (int w = 0; w < windows; w++) {
                for (int i = 0; i < window; i++) one.run();
                if (!stream) rma.quiet();
            }
            rma.quiet();
            double s = (System.nanoTime() - t0) / 1e9;
            long cpu = progressThreadCpuMillis() - cpu0;
            System.out.printf(
                    "BENCH %s %s_bw size=%d window=%d windows=%d MBps=%.1f (progress thread CPU %d ms of %.0f ms)%n",
                    label,
                    (put ? "put" : "get") + (stream ? "_stream" : ""),
                    size,
                    window,
                    windows,
                    (double) size * window * windows / s / (1 << 20),
                    cpu,
                    s * 1e3);
        }
        comm.barrier();
    }

    /**
     * CPU time (user + system, 10 ms ticks) of this process's UCX progress threads so far, from /proc (Linux; -1 elsewhere):
     * how much of a core the progress thread took beside the caller while it issued and waited.
     */
    private static long progressThreadCpuMillis() {
        long ticks = 0;
        try (var tasks = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/task"))) {
            for (var t : (Iterable<java.nio.file.Path>) tasks::iterator) {
                try {
                    if (!java.nio.file.Files.readString(t.resolve("comm")).startsWith("unicomm-ucx-pro")) continue;
                    String[] f = statFields(t.resolve("stat"));
                    ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14, 15)
                } catch (java.io.IOException e) {
                    // the thread ended meanwhile
                }
            }
        } catch (java.io.IOException e) {
            return -1;
        }
        return ticks * 10;
    }

    /** The fields of a {@code /proc/.../stat} file after the command name: index i is field i + 3 of proc(5). */
    private static String[] statFields(java.nio.file.Path stat) throws java.io.IOException {
        String line = java.nio.file.Files.readString(stat);
        return line.substring(line.lastIndexOf(')') + 2).split(" ");
    }

    /** Ping-pong of 8-byte blocking puts: rank 0 puts i into rank 1's word 0 and waits for i in its own word 1, rank 1 answers. */
    private static void putLatency(Communicator comm, String label, SymmetricBuffer words, Arena a, int iters) {
        MemorySegment v = a.allocate(8, 8);
        Rma rma = comm.rma();
        int me = comm.rank();
        comm.barrier();
        long[] ns = new long[iters];
        int warm = warmup();
        long[] sched0 = null;
        long cpu0 = 0;
        for (int i = 1; i <= warm + iters; i++) {
            if (i == warm + 1) {
                sched0 = schedCounts();
                cpu0 = progressThreadCpuMillis();
            }
            v.set(java.lang.foreign.ValueLayout.JAVA_LONG, 0, i);
            long t0 = System.nanoTime();
            if (me == 0) {
                rma.put(words, 0, Memory.of(v), 0, 8, 1);
                rma.signalWaitUntil(words, 8, Cmp.GE, i);
            } else if (me == 1) {
                rma.signalWaitUntil(words, 0, Cmp.GE, i);
                rma.put(words, 8, Memory.of(v), 0, 8, 0);
            }
            if (i > warm) ns[i - warm - 1] = System.nanoTime() - t0;
        }
        long[] sched1 = schedCounts();
        long cpu = progressThreadCpuMillis() - cpu0;
        if (me == 0) print(label, "put_lat8 (half round trip)", ns, 2);
        System.out.printf(
                "BENCH-SCHED %s rank %d timed loop: caller migrations %d, voluntary switches %d, involuntary %d, on CPU %d;"
                        + " progress thread CPU %d ms%n",
                label, me, sched1[0] - sched0[0], sched1[1] - sched0[1], sched1[2] - sched0[2], sched1[3], cpu);
        comm.barrier();
    }

    /**
     * The calling thread's scheduler counts from {@code /proc/thread-self} (Linux; zeros elsewhere): migrations between
     * CPUs, voluntary and involuntary context switches, and the CPU it last ran on. A diagnostic of the latency rows
     * (the 2-core bed host's rounds are bimodal).
     */
    private static long[] schedCounts() {
        long[] out = new long[4];
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/thread-self/sched"))) {
                String[] kv = line.split(":");
                if (kv.length != 2) continue;
                switch (kv[0].trim()) {
                    case "se.nr_migrations" -> out[0] = Long.parseLong(kv[1].trim());
                    case "nr_voluntary_switches" -> out[1] = Long.parseLong(kv[1].trim());
                    case "nr_involuntary_switches" -> out[2] = Long.parseLong(kv[1].trim());
                    default -> {}
                }
            }
            out[3] = Long.parseLong(statFields(java.nio.file.Path.of("/proc/thread-self/stat"))[36]); // processor (39)
        } catch (java.io.IOException | RuntimeException e) {
            // not Linux, or a field this kernel lacks: zeros
        }
        return out;
    }

    private static void faddLatency(Communicator comm, String label, SymmetricBuffer words, int iters) {
        comm.barrier();
        if (comm.rank() == 0) {
            Rma rma = comm.rma();
            for (int i = 0, warm = warmup(); i < warm; i++) rma.atomicFetchAdd(words, 16, 1, 1);
            long[] ns = new long[iters];
            for (int i = 0; i < iters; i++) {
                long t0 = System.nanoTime();
                rma.atomicFetchAdd(words, 16, 1, 1);
                ns[i] = System.nanoTime() - t0;
            }
            print(label, "fadd_lat8", ns, 1);
        }
        comm.barrier();
    }

    /**
     * Untimed iterations before a latency loop: BED_LAT_WARMUP (a scripts/ucx-bed-bench.sh variant), else 10,000, as
     * {@code ucx_perftest} (it was 1,000; 20,000 made no reliable difference over 9 rounds:
     * results/ucx-bed-2026-12-06/latency-warmup-*.txt).
     */
    private static int warmup() {
        String w = System.getenv("BED_LAT_WARMUP");
        return w != null ? Integer.parseInt(w) : 10_000;
    }

    private static void print(String label, String what, long[] ns, int divide) {
        long[] s = ns.clone();
        Arrays.sort(s);
        System.out.printf(
                "BENCH %s %s iters=%d typical(p50)=%.2fus avg=%.2fus p90=%.2fus%n",
                label,
                what,
                s.length,
                s[s.length / 2] / 1e3 / divide,
                Arrays.stream(s).average().orElse(0) / 1e3 / divide,
                s[s.length * 9 / 10] / 1e3 / divide);
    }
}
