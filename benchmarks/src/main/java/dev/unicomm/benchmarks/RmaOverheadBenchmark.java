package dev.unicomm.benchmarks;

import dev.unicomm.api.CommConfig;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.Memory;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Unicomm;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Per-call cost of small RMA operations through the API on a 1-PE {@code shm} communicator
 * ({@code api*}), and of the same memory operation done directly on the same shared mapping
 * ({@code raw*}, via {@link SymmetricBuffer#peer(int)}). {@code api / raw} is the price of
 * validation and dispatch. Average time per call in nanoseconds.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class RmaOverheadBenchmark {
    private static final long WORD = 8;
    private static final VarHandle LONG = ValueLayout.JAVA_LONG.varHandle();

    private Communicator comm;
    private Rma rma;
    private SymmetricBuffer buf;
    private Arena arena;
    private Memory src;
    private MemorySegment srcSegment;
    /** PE 0's mapping of {@link #buf}: what the raw references write to. */
    private MemorySegment mapped;

    @Setup(Level.Trial)
    public void open() {
        comm = Unicomm.connect(CommConfig.single("shm").withHeapSize(1 << 20));
        rma = comm.rma();
        buf = comm.heap().allocate(4096);
        mapped = buf.peer(0).orElseThrow(() -> new IllegalStateException("shm backend gave no direct mapping of PE 0"));
        arena = Arena.ofShared();
        srcSegment = arena.allocate(WORD, WORD);
        srcSegment.set(ValueLayout.JAVA_LONG, 0, 42L);
        src = Memory.of(srcSegment);
    }

    @TearDown(Level.Trial)
    public void close() {
        buf.close();
        comm.close();
        arena.close();
    }

    @Benchmark
    public void apiPut8Quiet() {
        rma.put(buf, 0, src, 0, WORD, 0);
        rma.quiet();
    }

    @Benchmark
    public void rawPut8Fence() {
        MemorySegment.copy(srcSegment, 0, mapped, 0, WORD);
        VarHandle.fullFence();
    }

    @Benchmark
    public long apiFetchAdd() {
        return rma.atomicFetchAdd(buf, 64, 1, 0);
    }

    @Benchmark
    public long rawFetchAdd() {
        return (long) LONG.getAndAdd(mapped, 64L, 1L);
    }

    @Benchmark
    public long apiSignalFetch() {
        return rma.signalFetch(buf, 128);
    }

    @Benchmark
    public long rawSignalFetch() {
        return (long) LONG.getVolatile(mapped, 128L);
    }
}
