package dev.unicomm.backend.nvshmem.gpu;

import dev.unicomm.api.Capability;
import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.DeviceBuffer;
import dev.unicomm.api.DeviceRuntime;
import dev.unicomm.api.LowLatencyCombined;
import dev.unicomm.api.LowLatencyDispatched;
import dev.unicomm.api.Memory;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.Tensor;
import dev.unicomm.api.Unicomm;
import dev.unicomm.backend.nvshmem.internal.NvOps;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.function.Supplier;

/**
 * What survives a killed PE on backend-nvshmem (issue 23: NVSHMEM has no shrink). One rank of a job
 * started by {@code unicomm run} (TCP store, as users run), looping low-latency MoE dispatch +
 * combine on device tensors.
 * <ul>
 *   <li>{@code kill}: the last rank SIGKILLs itself inside the loop ({@code KILL <epoch ms>}); every
 *       survivor prints when and how its MoE call ended ({@code FAILED}), then probes what still
 *       works: {@code shrink()}, the GPU through CUDA directly and through the API (allocate + copy +
 *       compare), closing the MoE buffer and the communicator, and connecting again in the same process.</li>
 *   <li>{@code clean}: a fresh job (the restart of the survivors): prints the time from JVM start
 *       to the first completed dispatch + combine ({@code FIRST_MOE}).</li>
 * </ul>
 * Started by {@code scripts/gpu-run.sh elastic}; every line is evidence, nothing here passes or fails.
 */
public final class ElasticGpuCheck {
    private static final int EXPERTS_PER_RANK = 8,
            TOKENS = 128,
            HIDDEN = 7168,
            TOPK = 8,
            KILL_AT = 20,
            MAX_ITERS = 100_000;

    public static void main(String[] args) throws Exception {
        boolean kill = args.length == 0 || args[0].equals("kill");
        long jvmStart = ProcessHandle.current()
                .info()
                .startInstant()
                .map(i -> i.toEpochMilli())
                .orElse(System.currentTimeMillis());
        Communicator comm = Unicomm.connect();
        int me = comm.rank(), n = comm.size(), victim = n - 1;
        say(
                me,
                "CONNECTED after " + (System.currentTimeMillis() - jvmStart) + " ms; backend "
                        + comm.backend().name() + ", declares ELASTIC: "
                        + comm.backend().capabilities().contains(Capability.ELASTIC));
        MoeConfig cfg = new MoeConfig(MoeConfig.Mode.LOW_LATENCY, EXPERTS_PER_RANK * n, HIDDEN, TOKENS, TOPK, false);
        DeviceRuntime dev = comm.device();
        MoeBuffer buf = comm.moe(cfg);
        Tensor[] in = inputs(dev, cfg, me);
        int i = 0;
        try {
            for (; i < (kill ? MAX_ITERS : 5); i++) {
                if (kill && me == victim && i == KILL_AT) killMyself(me);
                LowLatencyDispatched d = buf.lowLatencyDispatch(in[0], in[1], false, false);
                LowLatencyCombined c = buf.lowLatencyCombine(d.recvX(), in[1], in[2], d.handle(), false);
                if (c.x() == null) throw new IllegalStateException("no combine output");
                if (i == 0) say(me, "FIRST_MOE " + (System.currentTimeMillis() - jvmStart) + " ms after JVM start");
            }
            say(me, "LOOP_DONE " + i + " iterations");
        } catch (RuntimeException e) {
            say(me, "FAILED_AT " + System.currentTimeMillis() + " in iteration " + i + ": " + describe(e));
        }
        if (!kill) {
            buf.close();
            comm.close();
            return;
        }
        probe(me, "SHRINK", () -> "returned a communicator of " + comm.shrink().size() + " ranks");
        probe(me, "RAW_CUDA", ElasticGpuCheck::rawCudaWork);
        probe(me, "LOCAL_GPU_API", () -> localGpuWork(dev));
        probe(me, "CLOSE_MOE", () -> {
            buf.close();
            return "closed";
        });
        probe(me, "CLOSE_COMM", () -> {
            comm.close();
            return "closed";
        });
        probe(me, "RECONNECT_SAME_PROCESS", () -> {
            try (Communicator again = Unicomm.connect()) {
                return "connected, " + again.size() + " ranks";
            }
        });
        say(me, "DONE");
        System.out.flush();
        Runtime.getRuntime().halt(0); // NVSHMEM's own threads may still wait on the dead PE
    }

    private static Tensor[] inputs(DeviceRuntime dev, MoeConfig cfg, int me) {
        Arena arena = Arena.ofShared();
        MemorySegment x = arena.allocate(2L * TOKENS * HIDDEN, 64),
                idx = arena.allocate(8L * TOKENS * TOPK, 64),
                w = arena.allocate(4L * TOKENS * TOPK, 64);
        SplittableRandom rnd = new SplittableRandom(31 + me);
        for (long j = 0; j < TOKENS * (long) HIDDEN; j++)
            x.setAtIndex(ValueLayout.JAVA_SHORT, j, (short) 0x3f80); // bf16 1.0
        for (int t = 0; t < TOKENS; t++) {
            int[] pick = rnd.ints(0, cfg.numExperts()).distinct().limit(TOPK).toArray();
            for (int k = 0; k < TOPK; k++) {
                idx.setAtIndex(ValueLayout.JAVA_LONG, (long) t * TOPK + k, pick[k]);
                w.setAtIndex(ValueLayout.JAVA_FLOAT, (long) t * TOPK + k, 1f / TOPK);
            }
        }
        DeviceBuffer xd = dev.allocate(x.byteSize()),
                idxd = dev.allocate(idx.byteSize()),
                wd = dev.allocate(w.byteSize());
        dev.copy(xd, 0, Memory.of(x), 0, x.byteSize());
        dev.copy(idxd, 0, Memory.of(idx), 0, idx.byteSize());
        dev.copy(wd, 0, Memory.of(w), 0, w.byteSize());
        return new Tensor[] {
            Tensor.of(xd, DType.BF16, TOKENS, HIDDEN),
            Tensor.of(idxd, DType.INT64, TOKENS, TOPK),
            Tensor.of(wd, DType.FP32, TOKENS, TOPK)
        };
    }

    private static void killMyself(int me) throws Exception {
        say(me, "KILL " + System.currentTimeMillis());
        System.out.flush();
        new ProcessBuilder("kill", "-9", Long.toString(ProcessHandle.current().pid()))
                .inheritIO()
                .start()
                .waitFor();
        Runtime.getRuntime().halt(137); // only if kill(1) is missing
    }

    /** The GPU itself, past unicomm's API: allocate, copy a pattern there and back on a new stream, compare. */
    private static String rawCudaWork() {
        long n = 1 << 20, d = NvOps.devAlloc(n), h = NvOps.pinnedAlloc(2 * n), s = NvOps.streamCreate();
        try {
            MemorySegment host = MemorySegment.ofAddress(h).reinterpret(2 * n);
            for (long j = 0; j < n; j++) host.set(ValueLayout.JAVA_BYTE, j, (byte) (j * 13));
            NvOps.copyAsync(d, h, n, s);
            NvOps.copyAsync(h + n, d, n, s);
            long until = System.nanoTime() + 10_000_000_000L;
            while (!NvOps.streamDone(s)) if (System.nanoTime() > until) return "copies still not done after 10 s";
            return host.asSlice(0, n).mismatch(host.asSlice(n, n)) == -1
                    ? "1 MiB copied to the GPU and back intact on a new stream"
                    : "copy came back WRONG";
        } finally {
            NvOps.streamDestroy(s);
            NvOps.pinnedFree(h);
            NvOps.devFree(d);
        }
    }

    /** Allocates device memory outside the symmetric heap, copies a pattern there and back, compares. */
    private static String localGpuWork(DeviceRuntime dev) {
        try (Arena a = Arena.ofConfined();
                DeviceBuffer b = dev.allocate(1 << 20)) {
            MemorySegment src = a.allocate(1 << 20), back = a.allocate(1 << 20);
            for (int j = 0; j < (1 << 20); j++) src.set(ValueLayout.JAVA_BYTE, j, (byte) (j * 7));
            dev.copy(b, 0, Memory.of(src), 0, 1 << 20);
            dev.copy(Memory.of(back), 0, b, 0, 1 << 20);
            return src.mismatch(back) == -1 ? "1 MiB copied to the GPU and back intact" : "copy came back WRONG";
        }
    }

    private static void probe(int me, String what, Supplier<String> body) {
        long t = System.nanoTime();
        String outcome;
        try {
            outcome = "ok: " + body.get();
        } catch (RuntimeException | Error e) {
            outcome = "threw " + describe(e);
        }
        say(me, what + " (" + (System.nanoTime() - t) / 1_000_000 + " ms) " + outcome);
    }

    private static String describe(Throwable e) {
        String m = String.valueOf(e.getMessage()).replace('\n', ' ');
        return e.getClass().getSimpleName()
                + (e instanceof CommAbortedException a ? " [failedRank " + a.failedRank() + "]" : "") + ": "
                + (m.length() > 300 ? m.substring(0, 300) + "..." : m);
    }

    private static void say(int me, String line) {
        System.out.println("ELASTIC [rank " + me + "] " + line);
    }
}
