package dev.unicomm.testsupport;

import dev.unicomm.api.BackendReport;
import dev.unicomm.api.CommConfig;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.HostTopology;
import dev.unicomm.internal.checked.CheckedCommunicator;
import dev.unicomm.spi.BackendCommunicator;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.BackendRegistry;
import dev.unicomm.spi.CommBackendProvider;
import dev.unicomm.spi.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntFunction;

/**
 * Runs the ranks of a job as threads of this JVM. Each rank gets a real communicator, opened as
 * {@link dev.unicomm.api.Unicomm#connect} opens one (the backend opened with a {@link BackendContext},
 * wrapped in the validating layer), except that the rendezvous is a shared {@link MemoryStore}
 * instead of the TCP store. The backend is the caller's: a provider, or a test double
 * ({@link #of(BackendReport, Opener, int)}). A rank whose open fails aborts the store, so the others
 * fail at once naming it instead of waiting for their timeout.
 *
 * <pre>{@code
 * List<Long> sums = ThreadJob.of(new ShmBackendProvider(), 4).values(comm -> ...);
 * }</pre>
 *
 * Instances are immutable; the {@code with}-style methods return changed copies.
 */
public final class ThreadJob {
    /** Default wait limit of each rank's communicator and store. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(20);
    /** Default symmetric heap size per rank. */
    public static final long DEFAULT_HEAP_SIZE = 256L << 10;
    /** Default wall-clock limit of the whole job (every rank's body and close). */
    public static final Duration DEFAULT_JOB_TIMEOUT = Duration.ofSeconds(120);

    /** A rank's body; what it returns is that rank's value. */
    public interface Body<T> {
        T run(Communicator comm) throws Exception;
    }

    /** A rank's body without a value. */
    public interface Work {
        void run(Communicator comm) throws Exception;
    }

    /** Opens the raw backend communicator of one rank (a provider's {@code open}, or a test double's). */
    public interface Opener {
        BackendCommunicator open(BackendContext context);
    }

    /**
     * How one rank ended: its value, or what its open, body or close threw.
     *
     * @param rank  the rank
     * @param value the body's value ({@code null} if it failed)
     * @param error what it threw, or {@code null}
     */
    public record Outcome<T>(int rank, T value, Throwable error) {
        /** Whether the rank failed. */
        public boolean failed() {
            return error != null;
        }

        /** The value, or an {@link AssertionError} naming the rank and carrying its failure. */
        public T get() {
            if (error != null) throw new AssertionError("rank " + rank + " failed: " + error, error);
            return value;
        }
    }

    private final BackendReport backend;
    private final Opener opener;
    private final int ranks;
    private final Duration timeout;
    private final long heapSize;
    private final Map<String, String> properties;
    private final IntFunction<CommConfig> configs;
    private final Duration jobTimeout;
    private final int[] hostOfRank; // null: every rank on one host

    private ThreadJob(
            BackendReport backend,
            Opener opener,
            int ranks,
            Duration timeout,
            long heapSize,
            Map<String, String> properties,
            IntFunction<CommConfig> configs,
            Duration jobTimeout,
            int[] hostOfRank) {
        this.hostOfRank = hostOfRank;
        this.backend = backend;
        this.opener = opener;
        this.ranks = ranks;
        this.timeout = timeout;
        this.heapSize = heapSize;
        this.properties = properties;
        this.configs = configs;
        this.jobTimeout = jobTimeout;
    }

    /** {@code ranks} ranks over {@code provider} (opened with {@link CommBackendProvider#open}, reported as the registry does). */
    public static ThreadJob of(CommBackendProvider provider, int ranks) {
        Objects.requireNonNull(provider, "provider");
        return of(BackendRegistry.report(provider), provider::open, ranks);
    }

    /** {@code ranks} ranks over a backend that {@code opener} opens and {@code backend} describes (name, capabilities). */
    public static ThreadJob of(BackendReport backend, Opener opener, int ranks) {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(opener, "opener");
        if (ranks < 1) throw new IllegalArgumentException("ranks must be at least 1, got " + ranks);
        return new ThreadJob(
                backend, opener, ranks, DEFAULT_TIMEOUT, DEFAULT_HEAP_SIZE, Map.of(), null, DEFAULT_JOB_TIMEOUT, null);
    }

    /** Each rank's wait limit ({@link CommConfig#timeout()}, and the store's). */
    public ThreadJob timeout(Duration t) {
        requirePositive("timeout", t);
        return new ThreadJob(backend, opener, ranks, t, heapSize, properties, configs, jobTimeout, hostOfRank);
    }

    /** Each rank's symmetric heap size in bytes. */
    public ThreadJob heapSize(long bytes) {
        if (bytes <= 0) throw new IllegalArgumentException("heap size must be positive, got " + bytes);
        return new ThreadJob(backend, opener, ranks, timeout, bytes, properties, configs, jobTimeout, hostOfRank);
    }

    /** Backend properties of every rank ({@link CommConfig#properties()}). */
    public ThreadJob properties(Map<String, String> props) {
        return new ThreadJob(
                backend, opener, ranks, timeout, heapSize, Map.copyOf(props), configs, jobTimeout, hostOfRank);
    }

    /**
     * Each rank's whole configuration (for ranks that differ, e.g. in heap size); overrides
     * {@link #timeout}, {@link #heapSize} and {@link #properties}. Rank and world size must match the job.
     */
    public ThreadJob configs(IntFunction<CommConfig> perRank) {
        Objects.requireNonNull(perRank, "perRank");
        return new ThreadJob(backend, opener, ranks, timeout, heapSize, properties, perRank, jobTimeout, hostOfRank);
    }

    /** Wall-clock limit of the whole job; a job still running then fails the test. */
    public ThreadJob jobTimeout(Duration t) {
        requirePositive("job timeout", t);
        return new ThreadJob(backend, opener, ranks, timeout, heapSize, properties, configs, t, hostOfRank);
    }

    /**
     * A simulated host topology ({@link Communicator#topology()}): rank r on host {@code hostOfRank[r]},
     * hosts numbered by their first rank, named {@code sim0, sim1, …}. The ranks still share this JVM's
     * memory; host-aware algorithms (two-level MoE, hierarchical collectives) then run their cross-host
     * paths between threads, fast and without namespaces.
     */
    public ThreadJob hosts(int... hostOfRank) {
        if (hostOfRank.length != ranks)
            throw new IllegalArgumentException(
                    "a topology of " + ranks + " ranks needs " + ranks + " hosts, got " + hostOfRank.length);
        int hosts = java.util.Arrays.stream(hostOfRank).max().orElse(0) + 1;
        new HostTopology(
                0,
                hostOfRank,
                java.util.stream.IntStream.range(0, hosts)
                        .mapToObj(h -> "sim" + h)
                        .toList()); // validates
        return new ThreadJob(
                backend, opener, ranks, timeout, heapSize, properties, configs, jobTimeout, hostOfRank.clone());
    }

    /** Rank {@code rank}'s configuration: the backend's name, an in-process store address, and this job's settings. */
    public CommConfig config(int rank) {
        if (rank < 0 || rank >= ranks)
            throw new IllegalArgumentException("rank must be in [0, " + ranks + "), got " + rank);
        if (configs == null)
            return new CommConfig(
                    backend.name(), rank, ranks, rank, "in-process", 1, null, false, timeout, heapSize, properties);
        CommConfig c = configs.apply(rank);
        if (c.rank() != rank || c.worldSize() != ranks)
            throw new IllegalArgumentException(
                    "config for rank " + rank + " of " + ranks + " says rank " + c.rank() + " of " + c.worldSize());
        return c;
    }

    /** Runs {@code body} on every rank and returns each rank's outcome, by rank. */
    public <T> List<Outcome<T>> run(Body<T> body) {
        Objects.requireNonNull(body, "body");
        List<CommConfig> cfgs = new ArrayList<>();
        for (int r = 0; r < ranks; r++) cfgs.add(config(r));
        // The store's own waits use rank 0's limit, as the TCP store uses its host's.
        MemoryStore store = new MemoryStore(ranks, cfgs.get(0).timeout());
        ExecutorService pool = Executors.newFixedThreadPool(
                ranks, Thread.ofPlatform().name("rank-", 0).daemon(true).factory());
        try {
            List<Future<Outcome<T>>> futures = new ArrayList<>();
            for (int r = 0; r < ranks; r++) {
                int rank = r;
                futures.add(pool.submit(() -> runRank(rank, cfgs.get(rank), store.view(rank), body)));
            }
            List<Outcome<T>> out = new ArrayList<>();
            long deadline = System.nanoTime() + jobTimeout.toNanos();
            for (int r = 0; r < ranks; r++) {
                long left = Math.max(1, deadline - System.nanoTime());
                try {
                    out.add(futures.get(r).get(left, TimeUnit.NANOSECONDS));
                } catch (TimeoutException e) {
                    throw new AssertionError("thread job: rank " + r + " still running after " + jobTimeout, e);
                } catch (ExecutionException e) {
                    throw new AssertionError(
                            "thread job: rank " + r + " escaped its harness: " + e.getCause(), e.getCause());
                }
            }
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("thread job interrupted", e);
        } finally {
            pool.shutdownNow();
        }
    }

    private HostTopology topology(int rank) {
        int hosts = java.util.Arrays.stream(hostOfRank).max().orElse(0) + 1;
        return new HostTopology(
                rank,
                hostOfRank,
                java.util.stream.IntStream.range(0, hosts)
                        .mapToObj(h -> "sim" + h)
                        .toList());
    }

    private <T> Outcome<T> runRank(int rank, CommConfig cfg, Store store, Body<T> body) {
        Communicator comm;
        BackendCommunicator raw = null;
        try {
            raw = opener.open(new BackendContext(cfg, store));
            comm = hostOfRank == null
                    ? new CheckedCommunicator(raw, backend, cfg, store)
                    : new CheckedCommunicator(raw, backend, cfg, store, null, topology(rank));
        } catch (Throwable t) {
            store.abort("open failed on rank " + rank + ": " + t);
            if (raw != null) closeQuietly(raw, t);
            return new Outcome<>(rank, null, t);
        }
        try (comm) {
            return new Outcome<>(rank, body.run(comm), null);
        } catch (Throwable t) {
            return new Outcome<>(rank, null, t);
        }
    }

    /**
     * Runs {@code body} on every rank and returns the values, by rank; if any rank failed, throws an
     * {@link AssertionError} for the root failure (a rank's own assertion beats the errors that its
     * failure then causes on other ranks), with the other failures suppressed.
     */
    public <T> List<T> values(Body<T> body) {
        List<Outcome<T>> outcomes = run(body);
        Outcome<T> root = null;
        for (Outcome<T> o : outcomes) {
            if (!o.failed()) continue;
            if (root == null || (o.error() instanceof AssertionError && !(root.error() instanceof AssertionError)))
                root = o;
        }
        if (root != null) {
            AssertionError e = new AssertionError(
                    "rank " + root.rank() + " of " + ranks + " failed: " + root.error(), root.error());
            for (Outcome<T> o : outcomes) if (o.failed() && o != root) e.addSuppressed(o.error());
            throw e;
        }
        return outcomes.stream().map(Outcome::value).toList();
    }

    /** As {@link #values}, for bodies without a value. */
    public void runOk(Work work) {
        Objects.requireNonNull(work, "work");
        values(comm -> {
            work.run(comm);
            return Boolean.TRUE;
        });
    }

    /** A backend opened but not wrapped: release it, keeping a failure of the close with the open's. */
    private static void closeQuietly(BackendCommunicator raw, Throwable cause) {
        try {
            raw.close();
        } catch (Throwable t) {
            cause.addSuppressed(t);
        }
    }

    private static void requirePositive(String what, Duration d) {
        Objects.requireNonNull(d, what);
        if (d.isNegative() || d.isZero()) throw new IllegalArgumentException(what + " must be positive, got " + d);
    }
}
