package dev.unicomm.backend.nvshmem.gpu;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.DeviceBuffer;
import dev.unicomm.api.DeviceRuntime;
import dev.unicomm.api.LowLatencyCombined;
import dev.unicomm.api.LowLatencyDispatched;
import dev.unicomm.api.LowLatencyDispatchedOnStream;
import dev.unicomm.api.Memory;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.Stream;
import dev.unicomm.api.Tensor;
import dev.unicomm.backend.nvshmem.internal.NvOps;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * One PE of the CUDA-graph check of the stream-ordered low-latency MoE path: captures a dispatch
 * and its combine on a stream into a graph, replays it for several rounds of new activations, and
 * compares every replay's counts and combined output bit for bit with the host-sequenced
 * operations on another buffer (same kernels, so the same bits). Then times both ways for
 * {@code ROUNDS} calls. Prints {@code PASS}/{@code FAIL} lines and {@code GRAPH,...} timing lines;
 * the exit status is the number of failed rounds. Started by {@code scripts/gpu-run.sh graph}.
 */
public final class MoeGraphCheck {
    private static final int EXPERTS_PER_RANK = 16, TOKENS = 128, HIDDEN = 7168, TOPK = 8, ROUNDS = 5, TIMED = 200;

    public static void main(String[] args) {
        int failed = 0;
        try (Communicator comm = GpuCheck.connect(System.getenv(), 1L << 30);
                Arena arena = Arena.ofShared()) {
            int me = comm.rank(), experts = EXPERTS_PER_RANK * comm.size();
            DeviceRuntime dev = comm.device();
            MoeConfig cfg = new MoeConfig(MoeConfig.Mode.LOW_LATENCY, experts, HIDDEN, TOKENS, TOPK, true);
            try (MoeBuffer host = comm.moe(cfg);
                    MoeBuffer graphed = comm.moe(cfg);
                    Stream s = dev.createStream();
                    DeviceBuffer xd = dev.allocate(2L * TOKENS * HIDDEN);
                    DeviceBuffer idxd = dev.allocate(8L * TOKENS * TOPK);
                    DeviceBuffer wd = dev.allocate(4L * TOKENS * TOPK)) {
                MemorySegment xh = arena.allocate(2L * TOKENS * HIDDEN, 64),
                        idxh = arena.allocate(8L * TOKENS * TOPK, 64),
                        wh = arena.allocate(4L * TOKENS * TOPK, 64);
                SplittableRandom rnd = new SplittableRandom(17 + me);
                for (int t = 0; t < TOKENS; t++) {
                    int[] pick = rnd.ints(0, experts).distinct().limit(TOPK).toArray();
                    for (int k = 0; k < TOPK; k++) {
                        idxh.setAtIndex(
                                ValueLayout.JAVA_LONG, (long) t * TOPK + k, k == TOPK - 1 && t % 7 == 0 ? -1 : pick[k]);
                        wh.setAtIndex(ValueLayout.JAVA_FLOAT, (long) t * TOPK + k, (float) rnd.nextDouble());
                    }
                }
                dev.copy(idxd, 0, Memory.of(idxh), 0, idxh.byteSize());
                dev.copy(wd, 0, Memory.of(wh), 0, wh.byteSize());
                Tensor x = Tensor.of(xd, DType.BF16, TOKENS, HIDDEN),
                        idx = Tensor.of(idxd, DType.INT64, TOKENS, TOPK),
                        w = Tensor.of(wd, DType.FP32, TOKENS, TOPK);

                // Capture dispatch + in-place combine (each expert returns its token) on the stream.
                NvOps.graphBegin(s.handle());
                LowLatencyDispatchedOnStream gd = graphed.lowLatencyDispatch(s, x, idx, false);
                Tensor gout = graphed.lowLatencyCombine(s, gd.recvX(), idx, w, gd.handle());
                long graph = NvOps.graphEnd(s.handle());
                try {
                    for (int round = 0; round < ROUNDS; round++) {
                        fill(xh, me, round);
                        dev.copy(xd, 0, Memory.of(xh), 0, xh.byteSize());
                        LowLatencyDispatched d = host.lowLatencyDispatch(x, idx, false, false);
                        LowLatencyCombined c = host.lowLatencyCombine(d.recvX(), idx, w, d.handle(), false);
                        byte[] expected = read(dev, arena, c.x());
                        NvOps.graphLaunch(graph, s.handle());
                        s.synchronize();
                        byte[] got = read(dev, arena, gout);
                        int[] counts = MemorySegment.ofArray(read(dev, arena, gd.recvCount()))
                                .toArray(ValueLayout.JAVA_INT_UNALIGNED);
                        String name = "graph replay " + round
                                + ": recvCount and combined output equal the host-sequenced operations";
                        if (Arrays.equals(expected, got) && Arrays.equals(d.recvCount(), counts)) {
                            System.out.println("PASS [rank " + me + "] " + name);
                        } else {
                            failed++;
                            System.out.println("FAIL [rank " + me + "] " + name + ": counts " + Arrays.toString(counts)
                                    + " vs " + Arrays.toString(d.recvCount()) + ", first output difference at byte "
                                    + Arrays.mismatch(expected, got));
                        }
                        comm.barrier();
                    }
                    time(comm, "host-sequenced dispatch + combine", () -> {
                        LowLatencyDispatched d = host.lowLatencyDispatch(x, idx, false, false);
                        host.lowLatencyCombine(d.recvX(), idx, w, d.handle(), false);
                    });
                    time(comm, "graph replay (dispatch + combine) + stream synchronize", () -> {
                        NvOps.graphLaunch(graph, s.handle());
                        s.synchronize();
                    });
                } finally {
                    NvOps.graphDestroy(graph);
                }
            }
            comm.barrier();
        } catch (Throwable t) {
            failed++;
            System.out.println("FAIL MoE graph check: " + t);
            t.printStackTrace(System.out);
        }
        System.out.println("RESULT rank " + System.getenv("UNICOMM_RANK") + ": "
                + (failed == 0 ? "all checks passed" : failed + " failed"));
        System.exit(failed);
    }

    /** BF16 activations of a round: small integers / 16, exactly representable. */
    private static void fill(MemorySegment xh, int rank, int round) {
        for (long i = 0; i < (long) TOKENS * HIDDEN; i++) {
            float v = (float) (((i * 31 + rank * 7 + round * 13) % 61) - 30) / 16f;
            xh.setAtIndex(ValueLayout.JAVA_SHORT, i, (short) (Float.floatToRawIntBits(v) >>> 16));
        }
    }

    private static byte[] read(DeviceRuntime dev, Arena arena, Tensor t) {
        MemorySegment h = arena.allocate(t.byteSize(), 64);
        dev.copy(Memory.of(h), 0, t.memory(), 0, t.byteSize());
        return h.toArray(ValueLayout.JAVA_BYTE);
    }

    private static void time(Communicator comm, String what, Runnable op) {
        for (int i = 0; i < 500; i++) op.run(); // warm-up (JIT, caches)
        long[] ns = new long[TIMED];
        for (int i = 0; i < TIMED; i++) {
            comm.barrier();
            long t0 = System.nanoTime();
            op.run();
            ns[i] = System.nanoTime() - t0;
        }
        Arrays.sort(ns);
        System.out.println(String.format(
                Locale.ROOT,
                "GRAPH,%d,%s,median_us=%.1f,min_us=%.1f",
                comm.rank(),
                what,
                ns[TIMED / 2] / 1e3,
                ns[0] / 1e3));
    }
}
