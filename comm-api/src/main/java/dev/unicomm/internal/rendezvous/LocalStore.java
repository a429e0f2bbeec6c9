package dev.unicomm.internal.rendezvous;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.spi.Store;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** The store of a single-PE job: an in-process map with the same timeout rules as the TCP store. */
public final class LocalStore implements Store {
    private final Map<String, byte[]> values = new HashMap<>();
    private final Duration timeout;
    private volatile String aborted;

    public LocalStore(Duration timeout) {
        this.timeout = timeout;
    }

    @Override
    public synchronized void set(String key, byte[] value) {
        values.put(key, value.clone());
        notifyAll();
    }

    @Override
    public byte[] get(String key) {
        return get(key, timeout);
    }

    @Override
    public synchronized byte[] get(String key, Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (!values.containsKey(key)) {
            if (aborted != null) throw new CommAbortedException(0, aborted);
            long left = deadline - System.nanoTime();
            if (left <= 0) throw new CommTimeoutException("store get('" + key + "')", limit);
            try {
                wait(Math.max(1, left / 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CommTimeoutException("store get('" + key + "') (interrupted)", limit);
            }
        }
        return values.get(key).clone();
    }

    @Override
    public synchronized long add(String key, long delta) {
        long v = values.containsKey(key) ? Long.parseLong(new String(values.get(key))) + delta : delta;
        values.put(key, Long.toString(v).getBytes());
        notifyAll();
        return v;
    }

    @Override
    public synchronized boolean contains(String key) {
        return values.containsKey(key);
    }

    @Override
    public void barrier(String name) {
        /* one rank: everyone is here */
    }

    @Override
    public synchronized void abort(String reason) {
        aborted = reason;
        notifyAll();
    }

    @Override
    public void checkHealthy() {
        String reason = aborted;
        if (reason != null) throw new CommAbortedException(0, reason);
    }

    @Override
    public void close() {}
}
