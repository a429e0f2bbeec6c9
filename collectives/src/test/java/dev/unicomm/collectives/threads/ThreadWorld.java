package dev.unicomm.collectives.threads;

import dev.unicomm.api.BackendReport;
import dev.unicomm.api.Capability;
import dev.unicomm.api.CommConfig;
import dev.unicomm.api.Communicator;
import dev.unicomm.internal.checked.CheckedCommunicator;
import dev.unicomm.internal.rendezvous.LocalStore;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * A test double of a backend: PEs are threads of this JVM, each with its own heap segment, RMA is
 * memcpy plus atomic signal words. Lets the portable algorithms run with real concurrency (and
 * with or without direct peer access) before and besides the real backends.
 */
public final class ThreadWorld implements AutoCloseable {
    final int size;
    final boolean direct;
    final MemorySegment[] heaps;
    final long[] used;
    final CyclicBarrier barrier;
    final Duration timeout = Duration.ofSeconds(20);
    private final Arena arena = Arena.ofShared();

    private ThreadWorld(int size, boolean direct, long heapBytes) {
        this.size = size;
        this.direct = direct;
        this.heaps = new MemorySegment[size];
        this.used = new long[size];
        for (int i = 0; i < size; i++) heaps[i] = arena.allocate(heapBytes, 4096);
        this.barrier = new CyclicBarrier(size);
    }

    /** Runs {@code body} on {@code size} PEs (one thread each) and rethrows the first failure. */
    public static List<Throwable> run(int size, boolean direct, Map<String, String> props, Consumer<Communicator> body) {
        try (ThreadWorld w = new ThreadWorld(size, direct, 16 << 20)) {
            ExecutorService pool = Executors.newFixedThreadPool(size);
            List<Future<Throwable>> fs = new ArrayList<>();
            for (int r = 0; r < size; r++) {
                int rank = r;
                fs.add(pool.submit(() -> {
                    try (Communicator c = w.open(rank, props)) {
                        body.accept(c);
                        return null;
                    } catch (Throwable t) {
                        return t;
                    }
                }));
            }
            List<Throwable> errors = new ArrayList<>();
            for (Future<Throwable> f : fs) {
                try {
                    errors.add(f.get(120, TimeUnit.SECONDS));
                } catch (Exception e) {
                    errors.add(e);
                }
            }
            pool.shutdownNow();
            return errors;
        }
    }

    /** As {@link #run}, failing with the first error any PE raised. */
    public static void runOk(int size, boolean direct, Map<String, String> props, Consumer<Communicator> body) {
        for (Throwable t : run(size, direct, props, body)) {
            if (t != null) throw new AssertionError("a PE failed: " + t, t);
        }
    }

    Communicator open(int rank, Map<String, String> props) {
        Set<Capability> caps = EnumSet.of(Capability.RMA, Capability.SIGNALS, Capability.ATOMICS, Capability.TEAMS);
        if (direct) caps.add(Capability.DIRECT_PEER_ACCESS);
        BackendReport report = new BackendReport("threads", "test", 0, true, "", "", caps);
        CommConfig config = new CommConfig("threads", rank, size, rank, "localhost", 1, null, false, timeout,
                heaps[0].byteSize(), props);
        return new CheckedCommunicator(new ThreadComm(this, rank), report, config, new LocalStore(timeout));
    }

    @Override public void close() { arena.close(); }
}
