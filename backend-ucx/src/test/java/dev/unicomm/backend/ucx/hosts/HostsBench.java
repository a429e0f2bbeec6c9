package dev.unicomm.backend.ucx.hosts;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Unicomm;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Two ranks, one per host: rank 0 measures 8-byte get latency from rank 1 while rank 1 waits in a
 * barrier-free Java computation (never calling unicomm) and while it is idle in a store wait, then put
 * bandwidth (putNbi windows of 16, quiet per window) at 64 KiB and 1 MiB. Prints {@code BENCH} lines.
 */
public final class HostsBench {
    private HostsBench() {}

    public static void main(String[] args) {
        try (Communicator comm = Unicomm.connect();
                SymmetricBuffer buf = comm.heap().allocate(1 << 20);
                Arena a = Arena.ofConfined()) {
            MemorySegment local = a.allocate(1 << 20);
            getLatency(comm, buf, local, true);
            getLatency(comm, buf, local, false);
            for (int size : new int[] {64 << 10, 1 << 20}) putBandwidth(comm, buf, local, size);
        }
    }

    private static void getLatency(Communicator comm, SymmetricBuffer buf, MemorySegment local, boolean busy) {
        int iters = 5_000;
        comm.barrier();
        if (comm.rank() == 1) {
            // Computes until rank 0's "done" word lands in local memory (a plain load, no unicomm call), at most 30 s.
            if (busy) Busy.spinUntil(buf.segment(), 8, 30_000);
        } else {
            MemorySegment word = local.asSlice(0, 8);
            comm.rma().put(buf, 8, MemorySegment.ofArray(new long[] {0}), 1);
            for (int i = 0; i < 200; i++) comm.rma().get(word, buf, 0, 1); // warm-up
            long[] ns = new long[iters];
            for (int i = 0; i < iters; i++) {
                long t0 = System.nanoTime();
                comm.rma().get(word, buf, 0, 1);
                ns[i] = System.nanoTime() - t0;
            }
            comm.rma().put(buf, 8, MemorySegment.ofArray(new long[] {1}), 1);
            Arrays.sort(ns);
            System.out.printf(
                    "BENCH get8 target=%s iters=%d p50=%.1fus p90=%.1fus p99=%.1fus avg=%.1fus%n",
                    busy ? "busy-java" : "in-barrier",
                    iters,
                    ns[iters / 2] / 1e3,
                    ns[iters * 9 / 10] / 1e3,
                    ns[iters * 99 / 100] / 1e3,
                    Arrays.stream(ns).average().orElse(0) / 1e3);
        }
        comm.barrier();
    }

    private static void putBandwidth(Communicator comm, SymmetricBuffer buf, MemorySegment local, int size) {
        int window = 16, windows = size >= (1 << 20) ? 40 : 200;
        comm.barrier();
        if (comm.rank() == 0) {
            MemorySegment src = local.asSlice(0, size);
            for (int i = 0; i < window; i++) comm.rma().putNbi(buf, 0, dev.unicomm.api.Memory.of(src), 0, size, 1);
            comm.rma().quiet();
            long t0 = System.nanoTime();
            for (int w = 0; w < windows; w++) {
                for (int i = 0; i < window; i++) comm.rma().putNbi(buf, 0, dev.unicomm.api.Memory.of(src), 0, size, 1);
                comm.rma().quiet();
            }
            double s = (System.nanoTime() - t0) / 1e9;
            double bytes = (double) size * window * windows;
            System.out.printf(
                    "BENCH put_bw size=%d window=%d windows=%d MBps=%.1f (MB = 2^20 B, as ucx_perftest)%n",
                    size, window, windows, bytes / s / (1 << 20));
        }
        comm.barrier();
    }
}
