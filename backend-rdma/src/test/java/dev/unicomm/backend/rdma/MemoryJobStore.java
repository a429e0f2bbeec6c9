package dev.unicomm.backend.rdma;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.spi.Store;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** A rendezvous store for several PEs living in one JVM (tests only): one map, a view per rank. */
final class MemoryJobStore {
    private final int size;
    private final Duration timeout;
    private final Map<String, byte[]> values = new HashMap<>();
    private final Map<String, Integer> arrived = new HashMap<>();
    private String aborted;

    MemoryJobStore(int size, Duration timeout) {
        this.size = size;
        this.timeout = timeout;
    }

    Store view(int rank) {
        return new Store() {
            @Override public void set(String key, byte[] value) {
                synchronized (MemoryJobStore.this) {
                    values.put(key, value.clone());
                    MemoryJobStore.this.notifyAll();
                }
            }

            @Override public byte[] get(String key) { return get(key, timeout); }

            @Override public byte[] get(String key, Duration limit) {
                synchronized (MemoryJobStore.this) {
                    await(() -> values.containsKey(key), "get('" + key + "')", limit);
                    return values.get(key).clone();
                }
            }

            @Override public long add(String key, long delta) {
                synchronized (MemoryJobStore.this) {
                    byte[] old = values.get(key);
                    long v = (old == null ? 0 : Long.parseLong(new String(old, StandardCharsets.UTF_8))) + delta;
                    values.put(key, Long.toString(v).getBytes(StandardCharsets.UTF_8));
                    MemoryJobStore.this.notifyAll();
                    return v;
                }
            }

            @Override public boolean contains(String key) {
                synchronized (MemoryJobStore.this) {
                    return values.containsKey(key);
                }
            }

            @Override public void barrier(String name) {
                synchronized (MemoryJobStore.this) {
                    arrived.merge(name, 1, Integer::sum);
                    MemoryJobStore.this.notifyAll();
                    await(() -> arrived.get(name) >= size, "barrier('" + name + "')", timeout);
                }
            }

            @Override public void abort(String reason) {
                synchronized (MemoryJobStore.this) {
                    aborted = "rank " + rank + ": " + reason;
                    MemoryJobStore.this.notifyAll();
                }
            }

            @Override public void close() {}
        };
    }

    private void await(java.util.function.BooleanSupplier done, String what, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!done.getAsBoolean()) {
            if (aborted != null) throw new CommAbortedException(-1, aborted);
            long left = deadline - System.nanoTime();
            if (left <= 0) throw new CommTimeoutException("store " + what, limit);
            try {
                wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CommTimeoutException("store " + what + " (interrupted)", limit);
            }
        }
    }
}
