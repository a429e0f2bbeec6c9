package dev.unicomm.testsupport.threads;

import dev.unicomm.api.BackendReport;
import dev.unicomm.api.Capability;
import dev.unicomm.spi.BackendCommunicator;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.testsupport.ThreadJob;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;

/**
 * A test double of a backend: PEs are threads of this JVM, each with its own heap segment, RMA is
 * memcpy plus atomic signal words. Lets code written over any backend (the portable collectives) run
 * with real concurrency, with or without direct peer access, before and besides the real backends.
 * Its teams have no barrier of their own and no 2-D split. Run it with {@link #job()}:
 *
 * <pre>{@code
 * try (ThreadWorld w = ThreadWorld.create(4, true, 16 << 20)) {
 *     w.job().runOk(comm -> ...);
 * }
 * }</pre>
 */
public final class ThreadWorld implements AutoCloseable {
    final int size;
    final boolean direct;
    final MemorySegment[] heaps;
    final long[] used;
    final CyclicBarrier barrier;
    final Duration timeout = ThreadJob.DEFAULT_TIMEOUT;
    private final Arena arena = Arena.ofShared();

    private ThreadWorld(int size, boolean direct, long heapBytes) {
        this.size = size;
        this.direct = direct;
        this.heaps = new MemorySegment[size];
        this.used = new long[size];
        for (int i = 0; i < size; i++) heaps[i] = arena.allocate(heapBytes, 4096);
        this.barrier = new CyclicBarrier(size);
    }

    /**
     * A world of {@code size} thread-PEs with {@code heapBytes} of heap each.
     *
     * @param direct whether buffers offer peers' memory ({@link Capability#DIRECT_PEER_ACCESS})
     */
    public static ThreadWorld create(int size, boolean direct, long heapBytes) {
        if (size < 1) throw new IllegalArgumentException("size must be at least 1, got " + size);
        if (heapBytes <= 0) throw new IllegalArgumentException("heap size must be positive, got " + heapBytes);
        return new ThreadWorld(size, direct, heapBytes);
    }

    /** What the validating layer sees of this backend: name {@code threads}, RMA, signals, atomics, teams (+ direct access). */
    public BackendReport report() {
        Set<Capability> caps = EnumSet.of(Capability.RMA, Capability.SIGNALS, Capability.ATOMICS, Capability.TEAMS);
        if (direct) caps.add(Capability.DIRECT_PEER_ACCESS);
        return new BackendReport("threads", "test", 0, true, "", "", caps);
    }

    /** Rank {@code context.rank()}'s side of this world (the context's world size must be this world's). */
    public BackendCommunicator open(BackendContext context) {
        if (context.size() != size)
            throw new IllegalArgumentException(
                    "world of " + size + " PEs cannot open a rank of a job of " + context.size());
        return new ThreadComm(this, context.rank());
    }

    /** A {@link ThreadJob} of this world's PEs, with its heap size. */
    public ThreadJob job() {
        return ThreadJob.of(report(), this::open, size).heapSize(heaps[0].byteSize());
    }

    @Override
    public void close() {
        arena.close();
    }
}
