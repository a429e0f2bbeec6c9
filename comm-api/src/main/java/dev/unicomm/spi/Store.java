package dev.unicomm.spi;

import java.time.Duration;

/**
 * The job's rendezvous key-value store (rank 0 hosts it). Every wait has a timeout and fails with
 * {@link dev.unicomm.api.CommTimeoutException}; if another rank failed or aborted, waits fail with
 * {@link dev.unicomm.api.CommAbortedException} naming it.
 */
public interface Store extends AutoCloseable {

    /** Sets {@code key} to {@code value} (overwrites). */
    void set(String key, byte[] value);

    /** Waits until {@code key} is set, then returns its value. */
    byte[] get(String key);

    /** Waits at most {@code timeout} for {@code key}. */
    byte[] get(String key, Duration timeout);

    /** Atomically adds {@code delta} to the counter {@code key} (missing = 0) and returns the new value. */
    long add(String key, long delta);

    /** Whether {@code key} is set now (does not wait). */
    boolean contains(String key);

    /** Blocks until every rank has entered the barrier {@code name} (each name used once per rank). */
    void barrier(String name);

    /** Tells every rank that this rank aborts for {@code reason}; their waits fail naming it. */
    void abort(String reason);

    /**
     * Throws {@link dev.unicomm.api.CommAbortedException} if the job has been aborted (a rank called
     * {@link #abort}, a rank's connection dropped without a clean close, or the rendezvous host is
     * gone); otherwise returns at once. Cheap and non-blocking (a volatile read, no network round
     * trip), so backends call it from their spin-wait loops to notice a dead peer instead of
     * spinning until their timeout. The default never throws (stores that cannot fail).
     */
    default void checkHealthy() {}

    /** Leaves the store (rank 0 stops serving once every rank has left). */
    @Override
    void close();
}
