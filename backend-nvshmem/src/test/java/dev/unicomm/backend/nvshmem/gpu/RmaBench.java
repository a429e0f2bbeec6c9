package dev.unicomm.backend.nvshmem.gpu;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.DeviceBuffer;
import dev.unicomm.api.Rma;
import dev.unicomm.api.Stream;
import dev.unicomm.api.SymmetricBuffer;
import java.util.Locale;

/**
 * The Java side of the RMA benchmark, the mirror of bench/reference/rma_ref.cu: PE 0 issues
 * stream-ordered puts/gets of a device buffer to/from PE 1 through the public API
 * ({@code comm.rma().on(stream)}), timed the same way, printed as CSV lines
 * {@code java,<op>,<bytes>,<iters>,<us per op>,<GB/s>}.
 */
public final class RmaBench {
    /** Each figure is the best of this many timed batches (the C reference does the same). */
    private static final int REPS = 5;
    private static final long[] SIZES = {8, 64, 512, 4096, 32768, 262144, 1 << 20, 4 << 20, 16 << 20, 64 << 20, 256 << 20};

    public static void main(String[] args) {
        long max = args.length > 0 ? Long.parseLong(args[0]) : 256L << 20;
        try (Communicator comm = GpuCheck.connect(System.getenv(), max + (64L << 20))) {
            try (SymmetricBuffer sym = comm.heap().allocate(max, 2L << 20); DeviceBuffer local = comm.device().allocate(max);
                 Stream s = comm.device().createStream()) {
                comm.device().fill(local, 0, max, (byte) 1);
                comm.barrier();
                if (comm.rank() == 0) run(comm.rma().on(s), s, sym, local, max);
                comm.barrier();
            }
        }
    }

    private static void run(Rma rs, Stream s, SymmetricBuffer sym, DeviceBuffer local, long max) {
        // Warm the JIT on the exact call path before timing anything.
        for (int round = 0; round < 30; round++) {
            for (int i = 0; i < 1000; i++) rs.put(sym, 0, local, 0, 8, 1);
            s.synchronize();
        }
        for (long bytes : SIZES) {
            if (bytes > max) break;
            int iters = (int) Math.max(10, Math.min(1000, bytes >= (1 << 20) ? (2L << 30) / bytes : 1000));
            for (int op = 0; op < 2; op++) {
                for (int w = 0; w < 3; w++) issue(rs, op, sym, local, bytes);
                s.synchronize();
                double best = Double.MAX_VALUE;
                for (int rep = 0; rep < REPS; rep++) {
                    long t0 = System.nanoTime();
                    for (int i = 0; i < iters; i++) issue(rs, op, sym, local, bytes);
                    s.synchronize();
                    best = Math.min(best, (System.nanoTime() - t0) / 1e3 / iters);
                }
                print(op == 0 ? "put_bw" : "get_bw", bytes, iters, best);
            }
            if (bytes <= 64 << 10) {
                double issue = Double.MAX_VALUE, blocking = Double.MAX_VALUE;
                for (int rep = 0; rep < REPS; rep++) {
                    long t0 = System.nanoTime();
                    for (int i = 0; i < 1000; i++) rs.put(sym, 0, local, 0, bytes, 1);
                    issue = Math.min(issue, (System.nanoTime() - t0) / 1e3 / 1000);
                    s.synchronize();
                    t0 = System.nanoTime();
                    for (int i = 0; i < 1000; i++) {
                        rs.put(sym, 0, local, 0, bytes, 1);
                        s.synchronize();
                    }
                    blocking = Math.min(blocking, (System.nanoTime() - t0) / 1e3 / 1000);
                }
                print("put_issue", bytes, 1000, issue);
                print("put_blocking", bytes, 1000, blocking);
            }
        }
        System.out.flush();
    }

    private static void issue(Rma rs, int op, SymmetricBuffer sym, DeviceBuffer local, long bytes) {
        if (op == 0) rs.put(sym, 0, local, 0, bytes, 1);
        else rs.get(local, 0, sym, 0, bytes, 1);
    }

    private static void print(String op, long bytes, int iters, double us) {
        System.out.printf(Locale.ROOT, "java,%s,%d,%d,%.3f,%.3f%n", op, bytes, iters, us, bytes / us / 1e3);
    }
}
