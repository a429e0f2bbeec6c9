package dev.unicomm.benchmarks.bench;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.DeviceBuffer;
import dev.unicomm.api.Rma;
import dev.unicomm.api.Stream;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Unicomm;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * One rank of {@code unicomm bench rma} on a device backend (the heap in GPU memory): rank 0
 * issues stream-ordered puts and gets of a device buffer to/from rank 1 through
 * {@code comm.rma().on(stream)}, exactly what the C reference {@code benchmarks/reference/rma_ref.cu}
 * does with {@code nvshmemx_putmem_on_stream}, timed the same way (best of 5 batches), and prints
 * {@code dev,<op>,<bytes>,<iters>,<us per op>} lines. Ops: {@code put}/{@code get} (a batch of
 * operations, then one stream synchronize: bandwidth), {@code put-issue} (host time to enqueue a
 * small put), {@code put-blocking} (put + synchronize each time).
 *
 * <p>Arguments: a comma-separated list of sizes in bytes.
 */
public final class DeviceRmaBenchWorker {
    private DeviceRmaBenchWorker() {}

    static final int REPS = 5;

    public static void main(String[] args) {
        List<Long> sizes =
                Arrays.stream(args[0].split(",")).map(Long::parseLong).toList();
        long max = sizes.stream().mapToLong(Long::longValue).max().orElseThrow();
        try (Communicator comm = Unicomm.connect();
                SymmetricBuffer sym = comm.heap().allocate(max, 2L << 20);
                SymmetricBuffer done = comm.heap().allocate(64);
                DeviceBuffer local = comm.device().allocate(max);
                Stream s = comm.device().createStream()) {
            comm.device().fill(local, 0, max, (byte) 1);
            comm.device().fill(done, 0, 64, (byte) 0);
            comm.barrier();
            if (comm.rank() == 0) {
                run(comm.rma().on(s), s, sym, local, sizes);
                for (int pe = 1; pe < comm.size(); pe++) comm.rma().atomicSet(done, 0, 1, pe);
                comm.rma().quiet();
            } else {
                // Wait from the host (a small copy now and then), not in a GPU barrier kernel that would
                // share the GPU with rank 0's transfers; the C reference waits the same way.
                comm.rma().signalWaitUntil(done, 0, dev.unicomm.api.Cmp.EQ, 1);
            }
            comm.barrier();
        }
    }

    private static void run(Rma rs, Stream s, SymmetricBuffer sym, DeviceBuffer local, List<Long> sizes) {
        // Warm the JIT on the exact call path before timing anything.
        for (int round = 0; round < 30; round++) {
            for (int i = 0; i < 1000; i++) rs.put(sym, 0, local, 0, 8, 1);
            s.synchronize();
        }
        for (long bytes : sizes) {
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
                print(op == 0 ? "put" : "get", bytes, iters, best);
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
                print("put-issue", bytes, 1000, issue);
                print("put-blocking", bytes, 1000, blocking);
            }
        }
        System.out.flush();
    }

    private static void issue(Rma rs, int op, SymmetricBuffer sym, DeviceBuffer local, long bytes) {
        if (op == 0) rs.put(sym, 0, local, 0, bytes, 1);
        else rs.get(local, 0, sym, 0, bytes, 1);
    }

    private static void print(String op, long bytes, int iters, double us) {
        System.out.printf(Locale.ROOT, "dev,%s,%d,%d,%.3f%n", op, bytes, iters, us);
    }
}
