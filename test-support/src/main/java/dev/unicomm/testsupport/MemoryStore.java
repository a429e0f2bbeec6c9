package dev.unicomm.testsupport;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.spi.Store;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * The rendezvous store of a job whose ranks are threads of one JVM: one map shared by all ranks, one
 * {@link Store} view per rank ({@link #view}). It keeps the SPI's rules as the TCP store does: every
 * wait is bounded and fails with {@link CommTimeoutException}; after any rank's {@link Store#abort}
 * every wait and every {@link Store#checkHealthy()} fails with {@link CommAbortedException} naming
 * that rank (the first abort wins); a barrier name counts each rank once. A view that was closed
 * refuses further use, as a closed TCP connection would.
 */
public final class MemoryStore {
    private final int ranks;
    private final Duration timeout;
    private final Map<String, byte[]> values = new HashMap<>();
    private final Map<String, Integer> arrivals = new HashMap<>();
    private String abortReason;
    private int abortRank = -1;

    /**
     * @param ranks   ranks of the job (the barrier waits for this many)
     * @param timeout limit of {@link Store#get(String)} and {@link Store#barrier}
     */
    public MemoryStore(int ranks, Duration timeout) {
        if (ranks < 1) throw new IllegalArgumentException("ranks must be at least 1, got " + ranks);
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative() || timeout.isZero())
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        this.ranks = ranks;
        this.timeout = timeout;
    }

    /** Ranks of the job. */
    public int ranks() {
        return ranks;
    }

    /** Rank {@code rank}'s side of the store; each rank should take one view and close it once. */
    public Store view(int rank) {
        if (rank < 0 || rank >= ranks)
            throw new IllegalArgumentException("rank must be in [0, " + ranks + "), got " + rank);
        return new View(rank);
    }

    /** Whether a rank has aborted the job. */
    public synchronized boolean aborted() {
        return abortReason != null;
    }

    private final class View implements Store {
        private final int rank;
        private volatile boolean closed;

        View(int rank) {
            this.rank = rank;
        }

        private void ensureOpen() {
            if (closed) throw new IllegalStateException("rank " + rank + " has closed its store view");
        }

        @Override
        public void set(String key, byte[] value) {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
            ensureOpen();
            synchronized (MemoryStore.this) {
                values.put(key, value.clone());
                MemoryStore.this.notifyAll();
            }
        }

        @Override
        public byte[] get(String key) {
            return get(key, timeout);
        }

        @Override
        public byte[] get(String key, Duration limit) {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(limit, "limit");
            ensureOpen();
            synchronized (MemoryStore.this) {
                await(() -> values.containsKey(key), "store get('" + key + "')", limit);
                return values.get(key).clone();
            }
        }

        @Override
        public long add(String key, long delta) {
            Objects.requireNonNull(key, "key");
            ensureOpen();
            synchronized (MemoryStore.this) {
                byte[] old = values.get(key);
                long v = (old == null ? 0 : Long.parseLong(new String(old, StandardCharsets.UTF_8))) + delta;
                values.put(key, Long.toString(v).getBytes(StandardCharsets.UTF_8));
                MemoryStore.this.notifyAll();
                return v;
            }
        }

        @Override
        public boolean contains(String key) {
            Objects.requireNonNull(key, "key");
            ensureOpen();
            synchronized (MemoryStore.this) {
                return values.containsKey(key);
            }
        }

        @Override
        public void barrier(String name) {
            Objects.requireNonNull(name, "name");
            ensureOpen();
            synchronized (MemoryStore.this) {
                arrivals.merge(name, 1, Integer::sum);
                MemoryStore.this.notifyAll();
                await(() -> arrivals.get(name) >= ranks, "store barrier('" + name + "')", timeout);
            }
        }

        @Override
        public void abort(String reason) {
            Objects.requireNonNull(reason, "reason");
            synchronized (MemoryStore.this) {
                if (abortReason == null) {
                    abortReason = reason;
                    abortRank = rank;
                }
                MemoryStore.this.notifyAll();
            }
        }

        @Override
        public void checkHealthy() {
            synchronized (MemoryStore.this) {
                if (abortReason != null) throw new CommAbortedException(abortRank, abortReason);
            }
        }

        @Override
        public void close() {
            closed = true;
        }

        @Override
        public String toString() {
            return "MemoryStore[rank=" + rank + "/" + ranks + (closed ? ", closed" : "") + "]";
        }
    }

    /** Waits (holding this store's monitor) until {@code done}, an abort, or {@code limit}. */
    private void await(BooleanSupplier done, String what, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!done.getAsBoolean()) {
            if (abortReason != null) throw new CommAbortedException(abortRank, abortReason);
            long left = deadline - System.nanoTime();
            if (left <= 0) throw new CommTimeoutException(what, limit);
            try {
                wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CommTimeoutException(what + " (interrupted)", limit);
            }
        }
    }
}
