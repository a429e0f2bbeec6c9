package dev.unicomm.benchmarks.bench;

import dev.unicomm.api.Cmp;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.Memory;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Unicomm;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.List;

/**
 * One rank of {@code unicomm bench rma} (started by the launcher; configured from the environment).
 * Rank 0 measures and prints {@link BenchRow#toLine()} lines; rank 1 is the target; other ranks
 * only join the collective parts.
 *
 * <p>References, measured by rank 0 in the same run: a plain {@code MemorySegment.copy} of the same
 * size between two native segments (put, get, put-with-signal), a local {@code VarHandle.getAndAdd}
 * (fetch-add), and the one-way latency of two threads of one process bouncing a cache line
 * (ping-pong and barrier: the hardware floor of any cross-core handshake).
 *
 * <p>Arguments: {@code rma SIZES BARRIER_ITERS} (one-sided operations rank 0 -> 1, ping-pong,
 * barrier) or {@code barrier BARRIER_ITERS} (barrier only); SIZES is a comma-separated list of bytes.
 */
public final class RmaBenchWorker {
    private RmaBenchWorker() {}

    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    public static void main(String[] args) {
        try (BenchRecording jfr = BenchRecording.startIfRequested();
                Communicator comm = Unicomm.connect()) {
            switch (args[0]) {
                case "rma" -> {
                    List<Long> sizes = Arrays.stream(args[1].split(","))
                            .map(Long::parseLong)
                            .toList();
                    oneSided(comm, sizes);
                    pingPong(comm, Long.parseLong(args[2]));
                    barrier(comm, Long.parseLong(args[2]));
                }
                case "barrier" -> barrier(comm, Long.parseLong(args[1]));
                default -> throw new IllegalArgumentException("unknown mode " + args[0] + " (rma, barrier)");
            }
        }
    }

    /** Rank 0 -> rank 1: put, get, put-with-signal at every size, then atomic fetch-add; each with its reference. */
    static void oneSided(Communicator comm, List<Long> sizes) {
        long max = sizes.stream().mapToLong(Long::longValue).max().orElseThrow();
        int n = comm.size();
        try (Arena arena = Arena.ofConfined();
                SymmetricBuffer dst = comm.heap().allocate(max, 4096);
                SymmetricBuffer sig = comm.heap().allocate(64)) {
            comm.barrier();
            if (comm.rank() == 0) {
                MemorySegment src = arena.allocate(max, 4096),
                        local = arena.allocate(max, 4096),
                        refDst = arena.allocate(max, 4096);
                for (long i = 0; i < max; i += 4096) src.set(ValueLayout.JAVA_BYTE, i, (byte) i);
                local.fill((byte) 1);
                refDst.fill((byte) 1);
                Memory srcMem = Memory.of(src), localMem = Memory.of(local);
                Rma rma = comm.rma();
                for (long s : sizes) {
                    List<Timing.Result> r = Timing.compare(List.of(
                            it -> {
                                for (long i = 0; i < it; i++) MemorySegment.copy(src, 0, refDst, 0, s);
                            },
                            it -> {
                                for (long i = 0; i < it; i++) {
                                    rma.put(dst, 0, srcMem, 0, s, 1);
                                    rma.quiet();
                                }
                            },
                            it -> {
                                for (long i = 0; i < it; i++) rma.get(localMem, 0, dst, 0, s, 1);
                            },
                            it -> {
                                for (long i = 0; i < it; i++) {
                                    rma.putSignal(dst, 0, srcMem, 0, s, sig, 0, 1, SignalOp.ADD, 1);
                                    rma.quiet();
                                }
                            }));
                    print("put+quiet", n, s, r.get(1), r.get(0));
                    print("get", n, s, r.get(2), r.get(0));
                    print("put-signal+quiet", n, s, r.get(3), r.get(0));
                }
                MemorySegment word = arena.allocate(8, 8);
                List<Timing.Result> adds = Timing.compare(List.of(
                        it -> {
                            for (long i = 0; i < it; i++) {
                                long unused = (long) LONG.getAndAdd(word, 0L, 1L);
                            }
                        },
                        it -> {
                            for (long i = 0; i < it; i++) rma.atomicFetchAdd(sig, 8, 1, 1);
                        }));
                Timing.Result refAdd = adds.get(0), fadd = adds.get(1);
                System.out.println(new BenchRow(
                                "atomic-fetch-add",
                                n,
                                0,
                                fadd.iters(),
                                fadd.nsPerOp(),
                                "local VarHandle.getAndAdd",
                                refAdd.nsPerOp())
                        .toLine());
            }
            comm.barrier();
        }
    }

    /** Rank 0 and 1 bounce an 8-byte put-with-signal; half the round trip is the one-way latency. */
    static void pingPong(Communicator comm, long iters) {
        try (Arena arena = Arena.ofConfined();
                SymmetricBuffer data = comm.heap().allocate(64);
                SymmetricBuffer sig = comm.heap().allocate(8)) {
            Memory src = Memory.of(arena.allocate(8, 8));
            Rma rma = comm.rma();
            int me = comm.rank();
            long[] round = {0};
            comm.barrier();
            Timing.Batch bounce = it -> {
                for (long i = 0; i < it; i++) {
                    long r = ++round[0];
                    if (me == 0) {
                        rma.putSignal(data, 0, src, 0, 8, sig, 0, r, SignalOp.SET, 1);
                        rma.signalWaitUntil(sig, 0, Cmp.GE, r);
                    } else if (me == 1) {
                        rma.signalWaitUntil(sig, 0, Cmp.GE, r);
                        rma.putSignal(data, 0, src, 0, 8, sig, 0, r, SignalOp.SET, 0);
                    }
                }
            };
            if (me <= 1) {
                Timing.Result rt = Timing.measureFixed(bounce, iters, 5);
                if (me == 0) {
                    double floor = CacheLinePingPong.oneWayNs(iters, 5);
                    System.out.println(new BenchRow(
                                    "put-signal-pingpong/2",
                                    comm.size(),
                                    8,
                                    rt.iters(),
                                    rt.nsPerOp() / 2,
                                    "in-process 2-thread ping-pong (one way)",
                                    floor)
                            .toLine());
                }
            }
            comm.barrier();
        }
    }

    /** Every rank runs the same number of barriers; rank 0 reports the median time per barrier. */
    static void barrier(Communicator comm, long iters) {
        comm.barrier();
        Timing.Result r = Timing.measureFixed(
                it -> {
                    for (long i = 0; i < it; i++) comm.barrier();
                },
                iters,
                5);
        if (comm.rank() == 0) {
            // The other ranks wait in the closing barrier meanwhile (they sleep after a short spin).
            double floor = CacheLinePingPong.oneWayNs(iters, 5);
            System.out.println(new BenchRow(
                            "barrier",
                            comm.size(),
                            0,
                            r.iters(),
                            r.nsPerOp(),
                            "in-process 2-thread ping-pong (one way)",
                            floor)
                    .toLine());
        }
        comm.barrier();
    }

    private static void print(String op, int n, long bytes, Timing.Result ours, Timing.Result ref) {
        System.out.println(
                new BenchRow(op, n, bytes, ours.iters(), ours.nsPerOp(), "MemorySegment.copy", ref.nsPerOp()).toLine());
    }
}
