package dev.unicomm.backend.nvshmem.gpu;

import dev.unicomm.api.Cmp;
import dev.unicomm.api.CommConfig;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.DeviceBuffer;
import dev.unicomm.api.DeviceRuntime;
import dev.unicomm.api.Memory;
import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.NativeCallException;
import dev.unicomm.api.ReduceOp;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.Stream;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Team;
import dev.unicomm.backend.nvshmem.NvshmemBackendProvider;
import dev.unicomm.internal.checked.CheckedCommunicator;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.BackendRegistry;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One PE of the multi-process GPU check: every rank runs the same sequence of named checks against
 * the NVSHMEM backend and prints {@code PASS name} / {@code FAIL name: reason}; the exit status is
 * the number of failures. Started by {@code scripts/gpu-run.sh} and {@code NvshmemGpuTest} with
 * UNICOMM_RANK, UNICOMM_WORLD_SIZE and UNICOMM_FILE_STORE (a directory shared by the ranks).
 */
public final class GpuCheck {
    private final Communicator comm;
    private final int rank, n, peer, left;
    private final Arena arena = Arena.ofShared();
    private final List<String> failures = new ArrayList<>();

    private GpuCheck(Communicator comm) {
        this.comm = comm;
        this.rank = comm.rank();
        this.n = comm.size();
        this.peer = (rank + 1) % n;
        this.left = (rank + n - 1) % n;
    }

    /** Opens a communicator over the file store in {@code UNICOMM_FILE_STORE}. */
    public static Communicator connect(Map<String, String> env, long heapBytes) {
        return connect(env, heapBytes, Map.of());
    }

    /** As {@link #connect(Map, long)}, with {@code unicomm.*} settings ({@code properties}). */
    public static Communicator connect(Map<String, String> env, long heapBytes, Map<String, String> properties) {
        int rank = Integer.parseInt(env.get("UNICOMM_RANK"));
        int size = Integer.parseInt(env.get("UNICOMM_WORLD_SIZE"));
        Duration timeout = Duration.ofSeconds(Long.parseLong(env.getOrDefault("UNICOMM_TIMEOUT_S", "60")));
        Path dir = Path.of(env.get("UNICOMM_FILE_STORE"));
        var config = new CommConfig(
                "nvshmem", rank, size, rank, "file:" + dir, 0, null, false, timeout, heapBytes, properties);
        var store = new FileStore(dir, rank, size, timeout);
        var provider = new NvshmemBackendProvider();
        var raw = provider.open(new BackendContext(config, store));
        return new CheckedCommunicator(raw, BackendRegistry.report(provider), config, store);
    }

    public static void main(String[] args) {
        int failed;
        try (Communicator comm = connect(System.getenv(), 64L << 20)) {
            GpuCheck g = new GpuCheck(comm);
            g.runAll();
            failed = g.failures.size();
            comm.barrier();
        }
        // NVSHMEM stays initialized after close; reopening in the same process must work too.
        try (Communicator again = connect(System.getenv(), 64L << 20)) {
            GpuCheck g = new GpuCheck(again);
            g.check("reopen: allocate + ring put after close/open", g::ringPutHost);
            failed += g.failures.size();
        }
        System.out.println("RESULT rank " + System.getenv("UNICOMM_RANK") + ": "
                + (failed == 0 ? "all checks passed" : failed + " failed"));
        System.exit(failed);
    }

    private void runAll() {
        check("backend reports CUDA heap and capabilities", () -> {
            require(
                    comm.heap().kind().type() == MemoryKind.Type.CUDA,
                    "heap kind " + comm.heap().kind());
            require(
                    comm.backend().name().equals("nvshmem"),
                    "backend " + comm.backend().name());
        });
        check("ring put from host memory, get back", this::ringPutHost);
        check("ring putNbi from device memory + quiet", this::ringPutDevice);
        check("stream-ordered put + quiet on stream", this::streamPut);
        check("put-with-signal ADD, host wait", () -> putSignal(null));
        check("put-with-signal SET on stream, stream wait", this::putSignalStream);
        check("64-bit atomics on PE 0", this::atomics);
        check("getNbi into device memory", this::getNbi);
        check("teams: strided split and 2D split", this::teams);
        check("native broadcast/allgather/alltoall/alltoallv", this::dataCollectives);
        check("native allreduce/reduceScatter int32/int64/fp32/bf16, in place", this::reductions);
        check("peerMemory (nvshmem_ptr) + DeviceRuntime.copy from the peer", this::peerMemory);
        check("bad input rejected before native calls", this::badInput);
        check("CUDA error comes back as NativeCallException naming the call", this::nativeError);
        check("allocation sizes must agree across PEs", this::mismatchedAllocation);
    }

    private void check(String name, Runnable r) {
        try {
            r.run();
            System.out.println("PASS [rank " + rank + "] " + name);
        } catch (Throwable t) {
            failures.add(name);
            System.out.println("FAIL [rank " + rank + "] " + name + ": " + t);
            t.printStackTrace(System.out);
        }
    }

    private static void require(boolean ok, String what) {
        if (!ok) throw new AssertionError(what);
    }

    private MemorySegment pattern(long bytes, int seed) {
        MemorySegment s = arena.allocate(bytes, 8);
        for (long i = 0; i < bytes; i++) s.set(ValueLayout.JAVA_BYTE, i, (byte) (seed * 31 + i * 7));
        return s;
    }

    private static void same(MemorySegment expect, MemorySegment got, String what) {
        long m = expect.mismatch(got);
        require(m < 0, what + ": first difference at byte " + m);
    }

    private void ringPutHost() {
        long bytes = 3 * 4096 * 1024 + 123; // more than the 4 MiB bounce buffer: staged in chunks
        try (SymmetricBuffer buf = comm.heap().allocate(bytes)) {
            comm.rma().put(buf, 0, Memory.of(pattern(bytes, rank)), 0, bytes, peer);
            comm.rma().quiet();
            comm.barrier();
            MemorySegment got = arena.allocate(bytes);
            comm.rma().get(Memory.of(got), 0, buf, 0, bytes, rank);
            same(pattern(bytes, left), got, "data from PE " + left);
            // Java-heap segments go through the bounce buffer too.
            byte[] heap = new byte[4096];
            comm.rma().get(Memory.of(MemorySegment.ofArray(heap)), 0, buf, 0, heap.length, peer);
            same(pattern(bytes, rank).asSlice(0, 4096), MemorySegment.ofArray(heap), "get of my data from PE " + peer);
            comm.barrier();
        }
    }

    private void ringPutDevice() {
        DeviceRuntime dev = comm.device();
        long bytes = 1 << 20;
        try (SymmetricBuffer buf = comm.heap().allocate(bytes);
                DeviceBuffer src = dev.allocate(bytes)) {
            dev.copy(src, 0, Memory.of(pattern(bytes, rank + 10)), 0, bytes);
            comm.rma().putNbi(buf, 0, src, 0, bytes, peer);
            comm.rma().quiet();
            comm.barrier();
            MemorySegment got = arena.allocate(bytes);
            dev.copy(Memory.of(got), 0, buf, 0, bytes);
            same(pattern(bytes, left + 10), got, "device data from PE " + left);
            comm.barrier();
        }
    }

    private void streamPut() {
        DeviceRuntime dev = comm.device();
        long bytes = 256 * 1024;
        try (SymmetricBuffer buf = comm.heap().allocate(bytes);
                DeviceBuffer src = dev.allocate(bytes);
                Stream s = dev.createStream()) {
            dev.copy(src, 0, Memory.of(pattern(bytes, rank + 20)), 0, bytes);
            Rma rs = comm.rma().on(s);
            rs.put(buf, 0, src, 0, bytes, peer);
            rs.quiet();
            s.synchronize();
            comm.barrier();
            MemorySegment got = arena.allocate(bytes);
            comm.rma().get(Memory.of(got), 0, buf, 0, bytes, rank);
            same(pattern(bytes, left + 20), got, "stream-put data from PE " + left);
            comm.barrier();
        }
    }

    private void putSignal(Stream unused) {
        long bytes = 64 * 1024;
        try (SymmetricBuffer data = comm.heap().allocate(bytes);
                SymmetricBuffer sig = comm.heap().allocate(64)) {
            comm.device().fill(sig, 0, 64, (byte) 0);
            comm.barrier();
            comm.rma()
                    .putSignal(data, 0, Memory.of(pattern(bytes, rank + 30)), 0, bytes, sig, 8, 1, SignalOp.ADD, peer);
            long v = comm.rma().signalWaitUntil(sig, 8, Cmp.GE, 1);
            require(v == 1, "signal value " + v);
            MemorySegment got = arena.allocate(bytes);
            comm.rma().get(Memory.of(got), 0, data, 0, bytes, rank);
            same(pattern(bytes, left + 30), got, "signalled data from PE " + left);
            require(comm.rma().signalFetch(sig, 8) == 1, "signalFetch");
            comm.barrier();
        }
    }

    private void putSignalStream() {
        DeviceRuntime dev = comm.device();
        long bytes = 64 * 1024;
        try (SymmetricBuffer data = comm.heap().allocate(bytes);
                SymmetricBuffer sig = comm.heap().allocate(64);
                DeviceBuffer src = dev.allocate(bytes);
                Stream s = dev.createStream()) {
            dev.fill(sig, 0, 64, (byte) 0);
            dev.copy(src, 0, Memory.of(pattern(bytes, rank + 40)), 0, bytes);
            comm.barrier();
            Rma rs = comm.rma().on(s);
            rs.putSignal(data, 0, src, 0, bytes, sig, 0, 7, SignalOp.SET, peer);
            long v = rs.signalWaitUntil(sig, 0, Cmp.EQ, 7);
            require(v == 7, "signal value " + v);
            MemorySegment got = arena.allocate(bytes);
            dev.copy(Memory.of(got), 0, data, 0, bytes);
            same(pattern(bytes, left + 40), got, "stream-signalled data from PE " + left);
            comm.barrier();
        }
    }

    private void atomics() {
        try (SymmetricBuffer w = comm.heap().allocate(64)) {
            comm.device().fill(w, 0, 64, (byte) 0);
            comm.barrier();
            long before = comm.rma().atomicFetchAdd(w, 0, 1, 0);
            require(before >= 0 && before < n, "fetch-add returned " + before);
            comm.rma().atomicAdd(w, 8, 2, 0);
            comm.rma().quiet();
            comm.barrier();
            require(comm.rma().atomicFetch(w, 0, 0) == n, "counter after " + n + " fetch-adds");
            require(comm.rma().atomicFetch(w, 8, 0) == 2L * n, "counter after " + n + " adds of 2");
            comm.barrier();
            if (rank == 0) {
                comm.rma().atomicSet(w, 16, 5, 0);
                require(comm.rma().atomicCompareSwap(w, 16, 5, 9, 0) == 5, "cswap old value");
                require(comm.rma().atomicCompareSwap(w, 16, 5, 11, 0) == 9, "failed cswap returns current");
                require(comm.rma().atomicSwap(w, 16, -3, 0) == 9, "swap old value");
                require(comm.rma().atomicFetch(w, 16, 0) == -3, "value after swap");
            }
            // Stream-ordered atomics too.
            try (Stream s = comm.device().createStream()) {
                Rma rs = comm.rma().on(s);
                rs.atomicAdd(w, 24, 1, peer);
                rs.quiet();
                s.synchronize();
            }
            comm.barrier();
            require(comm.rma().atomicFetch(w, 24, rank) == 1, "stream atomicAdd from PE " + left);
            comm.barrier();
        }
    }

    private void getNbi() {
        DeviceRuntime dev = comm.device();
        long bytes = 128 * 1024;
        try (SymmetricBuffer buf = comm.heap().allocate(bytes);
                DeviceBuffer dst = dev.allocate(bytes)) {
            dev.copy(buf, 0, Memory.of(pattern(bytes, rank + 50)), 0, bytes);
            comm.barrier();
            comm.rma().getNbi(dst, 0, buf, 0, bytes, peer);
            comm.rma().quiet();
            MemorySegment got = arena.allocate(bytes);
            dev.copy(Memory.of(got), 0, dst, 0, bytes);
            same(pattern(bytes, peer + 50), got, "getNbi from PE " + peer);
            comm.barrier();
        }
    }

    private void teams() {
        int evens = (n + 1) / 2;
        try (Team even = comm.world().split(0, 2, evens)) {
            require(even.size() == evens, "even team size " + even.size());
            require(even.rank() == (rank % 2 == 0 ? rank / 2 : -1), "even team rank " + even.rank());
            for (int r = 0; r < evens; r++) require(even.worldRank(r) == 2 * r, "even team world rank of " + r);
            if (even.rank() >= 0) {
                even.barrier();
                require(comm.world().translate(rank, even) == rank / 2, "translate world -> even team");
            }
        }
        comm.barrier();
        if (n >= 2) {
            Team.Split2d grid = comm.world().split2d(2);
            try (Team x = grid.x();
                    Team y = grid.y()) {
                require(x.rank() == rank % 2, "x-team rank " + x.rank());
                require(y.rank() == rank / 2, "y-team rank " + y.rank());
                require(y.size() == (n - rank % 2 + 1) / 2, "y-team size " + y.size());
                x.barrier();
                y.barrier();
                // A collective on a sub-team: sum of world ranks over my column.
                try (SymmetricBuffer v = comm.heap().allocate(8);
                        SymmetricBuffer r = comm.heap().allocate(8)) {
                    MemorySegment one = arena.allocate(8);
                    one.set(ValueLayout.JAVA_LONG, 0, rank);
                    comm.device().copy(v, 0, Memory.of(one), 0, 8);
                    comm.collectives().allreduce(y, r, v, 1, DType.INT64, ReduceOp.SUM);
                    comm.device().copy(Memory.of(one), 0, r, 0, 8);
                    long expect = 0;
                    for (int i = rank % 2; i < n; i += 2) expect += i;
                    require(
                            one.get(ValueLayout.JAVA_LONG, 0) == expect,
                            "column sum " + one.get(ValueLayout.JAVA_LONG, 0) + " != " + expect);
                }
            }
        }
        comm.barrier();
    }

    private MemorySegment read(SymmetricBuffer b, long bytes) {
        MemorySegment s = arena.allocate(Math.max(bytes, 1), 8);
        comm.device().copy(Memory.of(s), 0, b, 0, bytes);
        return s.asSlice(0, bytes);
    }

    private void write(SymmetricBuffer b, MemorySegment s) {
        comm.device().copy(b, 0, Memory.of(s), 0, s.byteSize());
    }

    private void dataCollectives() {
        var coll = comm.collectives();
        Team w = comm.world();
        long block = 1000;
        try (SymmetricBuffer src = comm.heap().allocate(block * n);
                SymmetricBuffer dst = comm.heap().allocate(block * n)) {
            int root = n > 1 ? 1 : 0;
            write(src, pattern(block, 60 + rank));
            coll.broadcast(w, dst, src, block, DType.UINT8, root);
            same(pattern(block, 60 + root), read(dst, block), "broadcast from root " + root);

            coll.allgather(w, dst, src, block, DType.UINT8);
            MemorySegment all = read(dst, block * n);
            for (int r = 0; r < n; r++)
                same(pattern(block, 60 + r), all.asSlice(r * block, block), "allgather block " + r);

            MemorySegment blocks = arena.allocate(block * n);
            for (int j = 0; j < n; j++) MemorySegment.copy(pattern(block, 100 * rank + j), 0, blocks, j * block, block);
            write(src, blocks);
            coll.alltoall(w, dst, src, block, DType.UINT8);
            all = read(dst, block * n);
            for (int i = 0; i < n; i++)
                same(pattern(block, 100 * i + rank), all.asSlice(i * block, block), "alltoall block from " + i);

            // alltoallv: PE i sends (i + j + 1) * 10 bytes to PE j, packed; receivers pack by source.
            long[] sc = new long[n], so = new long[n], rc = new long[n], ro = new long[n];
            long off = 0;
            for (int j = 0; j < n; j++) {
                sc[j] = (rank + j + 1) * 10L;
                so[j] = off;
                off += sc[j];
            }
            off = 0;
            for (int i = 0; i < n; i++) {
                rc[i] = (i + rank + 1) * 10L;
                ro[i] = off;
                off += rc[i];
            }
            MemorySegment sendBuf = arena.allocate(block * n);
            for (int j = 0; j < n; j++) MemorySegment.copy(pattern(sc[j], 7 * rank + j), 0, sendBuf, so[j], sc[j]);
            write(src, sendBuf);
            coll.alltoallv(w, dst, rc, ro, src, sc, so, DType.UINT8);
            all = read(dst, block * n);
            for (int i = 0; i < n; i++)
                same(pattern(rc[i], 7 * i + rank), all.asSlice(ro[i], rc[i]), "alltoallv block from " + i);
        }
        comm.barrier();
    }

    private void reductions() {
        var coll = comm.collectives();
        Team w = comm.world();
        int count = 4096;
        try (SymmetricBuffer src = comm.heap().allocate(8L * count * n);
                SymmetricBuffer dst = comm.heap().allocate(8L * count * n)) {
            // int32 SUM and MAX
            MemorySegment v = arena.allocate(4L * count);
            for (int i = 0; i < count; i++) v.setAtIndex(ValueLayout.JAVA_INT, i, i * (rank + 1));
            write(src, v);
            coll.allreduce(w, dst, src, count, DType.INT32, ReduceOp.SUM);
            MemorySegment r = read(dst, 4L * count);
            int tri = n * (n + 1) / 2;
            for (int i = 0; i < count; i++)
                require(r.getAtIndex(ValueLayout.JAVA_INT, i) == i * tri, "int32 sum at " + i);
            coll.allreduce(w, dst, src, count, DType.INT32, ReduceOp.MAX);
            r = read(dst, 4L * count);
            for (int i = 0; i < count; i++)
                require(r.getAtIndex(ValueLayout.JAVA_INT, i) == i * n, "int32 max at " + i);
            // int64 MIN
            MemorySegment l = arena.allocate(8L * count);
            for (int i = 0; i < count; i++) l.setAtIndex(ValueLayout.JAVA_LONG, i, (long) i - 1000L * rank);
            write(src, l);
            coll.allreduce(w, dst, src, count, DType.INT64, ReduceOp.MIN);
            r = read(dst, 8L * count);
            for (int i = 0; i < count; i++)
                require(r.getAtIndex(ValueLayout.JAVA_LONG, i) == i - 1000L * (n - 1), "int64 min at " + i);
            // fp32 SUM in place
            MemorySegment f = arena.allocate(4L * count);
            for (int i = 0; i < count; i++) f.setAtIndex(ValueLayout.JAVA_FLOAT, i, 0.5f * i + rank);
            write(dst, f);
            coll.allreduce(w, dst, dst, count, DType.FP32, ReduceOp.SUM);
            r = read(dst, 4L * count);
            for (int i = 0; i < count; i++) {
                float expect = n * 0.5f * i + (n * (n - 1)) / 2f;
                require(
                        Math.abs(r.getAtIndex(ValueLayout.JAVA_FLOAT, i) - expect) <= 1e-3f * Math.max(1, expect),
                        "fp32 in-place sum at " + i);
            }
            // bf16 SUM of small integers (exact in bf16)
            MemorySegment b = arena.allocate(2L * count);
            for (int i = 0; i < count; i++) b.setAtIndex(ValueLayout.JAVA_SHORT, i, bf16(i % 16 + rank));
            write(src, b);
            coll.allreduce(w, dst, src, count, DType.BF16, ReduceOp.SUM);
            r = read(dst, 2L * count);
            for (int i = 0; i < count; i++) {
                float expect = n * (i % 16) + (n * (n - 1)) / 2f;
                require(fromBf16(r.getAtIndex(ValueLayout.JAVA_SHORT, i)) == expect, "bf16 sum at " + i);
            }
            // int32 reduceScatter SUM: element e of block k is (k * count + e) * (rank+1)
            int per = 256;
            MemorySegment rs = arena.allocate(4L * per * n);
            for (int e = 0; e < per * n; e++) rs.setAtIndex(ValueLayout.JAVA_INT, e, e * (rank + 1));
            write(src, rs);
            coll.reduceScatter(w, dst, src, per, DType.INT32, ReduceOp.SUM);
            r = read(dst, 4L * per);
            for (int e = 0; e < per; e++)
                require(r.getAtIndex(ValueLayout.JAVA_INT, e) == (rank * per + e) * tri, "reduceScatter at " + e);
        }
        comm.barrier();
    }

    private static short bf16(float f) {
        return (short) (Float.floatToIntBits(f) >>> 16);
    }

    private static float fromBf16(short s) {
        return Float.intBitsToFloat((s & 0xffff) << 16);
    }

    private void peerMemory() {
        long bytes = 4096;
        try (SymmetricBuffer buf = comm.heap().allocate(bytes)) {
            write(buf, pattern(bytes, 80 + rank));
            comm.barrier();
            require(buf.peer(peer).isEmpty(), "peer() must be empty for GPU memory");
            var pm = buf.peerMemory(peer);
            require(pm.isPresent(), "nvshmem_ptr to PE " + peer + " on one host should be non-null");
            require(
                    pm.get().kind().equals(comm.heap().kind()),
                    "peer memory kind " + pm.get().kind());
            MemorySegment got = arena.allocate(bytes);
            comm.device().copy(Memory.of(got), 0, pm.get(), 0, bytes);
            same(pattern(bytes, 80 + peer), got, "load through nvshmem_ptr of PE " + peer);
            comm.barrier();
        }
    }

    private <T extends Throwable> void expect(Class<T> type, String contains, Runnable r) {
        try {
            r.run();
        } catch (Throwable t) {
            require(type.isInstance(t), "expected " + type.getSimpleName() + " but got " + t);
            require(
                    t.getMessage() != null && t.getMessage().contains(contains),
                    "message '" + t.getMessage() + "' lacks '" + contains + "'");
            return;
        }
        throw new AssertionError("expected " + type.getSimpleName() + " (" + contains + ") but nothing was thrown");
    }

    private void badInput() {
        DeviceRuntime dev = comm.device();
        try (SymmetricBuffer buf = comm.heap().allocate(1024);
                Stream s = dev.createStream()) {
            MemorySegment host = arena.allocate(1024);
            Rma rs = comm.rma().on(s);
            expect(IllegalArgumentException.class, "host memory", () -> rs.put(buf, 0, Memory.of(host), 0, 64, peer));
            expect(IndexOutOfBoundsException.class, "PE " + n, () -> comm.rma().put(buf, 0, Memory.of(host), 0, 64, n));
            expect(IndexOutOfBoundsException.class, "outside", () -> comm.rma()
                    .put(buf, 1000, Memory.of(host), 0, 64, peer));
            expect(IndexOutOfBoundsException.class, "outside", () -> rs.get(buf, 0, buf, 1020, 8, peer));
            expect(IllegalArgumentException.class, "CUDA:7", () -> comm.rma()
                    .put(buf, 0, Memory.device(0x1000, 64, MemoryKind.cuda(7)), 0, 64, peer));
            expect(IllegalArgumentException.class, "aligned", () -> comm.rma().atomicAdd(buf, 4, 1, peer));
            expect(IllegalStateException.class, "host cannot dereference", buf::segment);
            s.close();
            expect(IllegalStateException.class, "closed", () -> rs.put(buf, 0, buf, 0, 8, peer));
            expect(IllegalStateException.class, "closed", () -> comm.rma().on(s));
        }
        comm.barrier();
        SymmetricBuffer once = comm.heap().allocate(64);
        once.close();
        expect(IllegalStateException.class, "double free", once::close);
        expect(IllegalStateException.class, "freed", () -> comm.rma()
                .put(once, 0, Memory.of(arena.allocate(8)), 0, 8, peer));
        comm.barrier();
    }

    private void nativeError() {
        try {
            comm.device().allocate(1L << 50).close();
            throw new AssertionError("a 1 PiB cudaMalloc succeeded");
        } catch (NativeCallException e) {
            require(e.call().equals("cudaMalloc"), "call " + e.call());
            require(e.getMessage().contains("cudaErrorMemoryAllocation"), "message " + e.getMessage());
        }
    }

    private void mismatchedAllocation() {
        if (n < 2) return;
        // The validating layer's call agreement catches it first, naming both sizes (the heap's own check is behind
        // it).
        expect(IllegalArgumentException.class, "size 128, alignment", () -> comm.heap()
                .allocate(rank == 0 ? 64 : 128)
                .close());
        try (SymmetricBuffer ok = comm.heap().allocate(256)) {
            require(ok.byteSize() == 256, "allocation after a refused one");
        }
        comm.barrier();
    }
}
