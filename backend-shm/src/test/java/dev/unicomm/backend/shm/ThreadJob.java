package dev.unicomm.backend.shm;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.CommConfig;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.Communicator;
import dev.unicomm.internal.checked.CheckedCommunicator;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.BackendRegistry;
import dev.unicomm.spi.Store;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs N PEs of the shm backend as threads of this JVM, with an in-memory store shared by them.
 * The PEs still map each other's files, exactly as separate processes do; only the rendezvous is
 * in-process. Each PE's result (or exception) comes back by rank.
 */
final class ThreadJob {
    private ThreadJob() {}

    /** A PE's body. */
    interface Body<T> { T run(Communicator comm) throws Exception; }

    /** Per-rank outcomes: the value, or the exception the body threw. */
    record Outcome<T>(T value, Throwable error) {
        T get() {
            if (error != null) throw new AssertionError("PE failed: " + error, error);
            return value;
        }
    }

    static <T> List<Outcome<T>> run(int n, Body<T> body) { return run(n, Duration.ofSeconds(20), 256L << 10, body); }

    static <T> List<Outcome<T>> run(int n, Duration timeout, long heapSize, Body<T> body) {
        return run(n, rank -> config(rank, n, timeout, heapSize), body);
    }

    static CommConfig config(int rank, int n, Duration timeout, long heapSize) {
        return new CommConfig("shm", rank, n, rank, "in-process", 1, null, false, timeout, heapSize, Map.of());
    }

    interface Configs { CommConfig of(int rank); }

    static <T> List<Outcome<T>> run(int n, Configs configs, Body<T> body) {
        SharedStore shared = new SharedStore(n);
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<Future<Outcome<T>>> futures = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                CommConfig cfg = configs.of(r);
                Store store = shared.view(r, cfg.timeout());
                futures.add(pool.submit(() -> {
                    ShmBackendProvider p = new ShmBackendProvider();
                    Communicator comm;
                    try {
                        comm = new CheckedCommunicator(p.open(new BackendContext(cfg, store)),
                                BackendRegistry.report(p), cfg, store);
                    } catch (Throwable t) {
                        store.abort("open failed: " + t);
                        return new Outcome<T>(null, t);
                    }
                    try (comm) {
                        return new Outcome<>(body.run(comm), null);
                    } catch (Throwable t) {
                        return new Outcome<T>(null, t);
                    }
                }));
            }
            List<Outcome<T>> out = new ArrayList<>();
            for (Future<Outcome<T>> f : futures) out.add(f.get(120, TimeUnit.SECONDS));
            return out;
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            throw new AssertionError("thread job did not finish: " + e, e);
        } finally {
            pool.shutdownNow();
        }
    }

    /** Values of every rank, failing if any rank failed. */
    static <T> List<T> values(List<Outcome<T>> outcomes) {
        return outcomes.stream().map(Outcome::get).toList();
    }

    /** The store of an N-rank in-process job. */
    static final class SharedStore {
        private final int n;
        private final Map<String, byte[]> values = new HashMap<>();
        private final Map<String, Integer> arrivals = new HashMap<>();
        private String aborted;
        private int abortedRank = -1;

        SharedStore(int n) { this.n = n; }

        Store view(int rank, Duration timeout) {
            return new Store() {
                @Override public void set(String key, byte[] value) {
                    synchronized (SharedStore.this) {
                        values.put(key, value.clone());
                        SharedStore.this.notifyAll();
                    }
                }

                @Override public byte[] get(String key) { return get(key, timeout); }

                @Override public byte[] get(String key, Duration limit) {
                    synchronized (SharedStore.this) {
                        await(() -> values.containsKey(key), "store get('" + key + "')", limit);
                        return values.get(key).clone();
                    }
                }

                @Override public long add(String key, long delta) {
                    synchronized (SharedStore.this) {
                        long v = values.containsKey(key) ? Long.parseLong(new String(values.get(key))) + delta : delta;
                        values.put(key, Long.toString(v).getBytes());
                        SharedStore.this.notifyAll();
                        return v;
                    }
                }

                @Override public boolean contains(String key) {
                    synchronized (SharedStore.this) { return values.containsKey(key); }
                }

                @Override public void barrier(String name) {
                    synchronized (SharedStore.this) {
                        arrivals.merge(name, 1, Integer::sum);
                        SharedStore.this.notifyAll();
                        await(() -> arrivals.get(name) >= n, "store barrier('" + name + "')", timeout);
                    }
                }

                @Override public void abort(String reason) {
                    synchronized (SharedStore.this) {
                        if (aborted == null) {
                            aborted = reason;
                            abortedRank = rank;
                        }
                        SharedStore.this.notifyAll();
                    }
                }

                @Override public void checkHealthy() {
                    synchronized (SharedStore.this) {
                        if (aborted != null) throw new CommAbortedException(abortedRank, aborted);
                    }
                }

                @Override public void close() {}
            };
        }

        private void await(java.util.function.BooleanSupplier done, String what, Duration limit) {
            long deadline = System.nanoTime() + limit.toNanos();
            while (!done.getAsBoolean()) {
                if (aborted != null) throw new CommAbortedException(abortedRank, aborted);
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
}
