package dev.unicomm.spi.support;

import dev.unicomm.api.CommException;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.Memory;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The argument checks every {@link dev.unicomm.api.Endpoint} makes before its transport sees a call, with the
 * same one-line messages on every backend, and the wait of {@link dev.unicomm.api.Endpoint#await}. The local
 * regions' own checks are in {@link LocalRegions}.
 */
public final class EndpointChecks {
    private EndpointChecks() {}

    /**
     * Checks {@code registerRegion}'s name and memory (the caller checks its own memory kinds in between:
     * call {@link #checkRegionName} first, then the kind, then {@link #checkRegistrable}).
     *
     * @throws IllegalArgumentException if the name is null or empty, or the memory null
     */
    public static void checkRegionName(String name, Memory memory) {
        if (name == null || name.isEmpty()) throw new IllegalArgumentException("region name must not be null or empty");
        if (memory == null) throw new IllegalArgumentException("region '" + name + "': memory must not be null");
    }

    /**
     * Checks that {@code memory} can be registered: host memory must be a native segment whose arena is open,
     * and a region holds at least one byte.
     *
     * @throws IllegalArgumentException for a Java heap segment or an empty region
     * @throws IllegalStateException if the segment's arena is closed
     */
    public static void checkRegistrable(String name, Memory memory) {
        if (memory.kind().isHost() && !memory.segment().isNative())
            throw new IllegalArgumentException(
                    "region '" + name + "': a Java heap segment cannot be registered; allocate it from an Arena");
        if (memory.byteSize() <= 0)
            throw new IllegalArgumentException(
                    "region '" + name + "' must be at least 1 byte, got " + memory.byteSize());
        if (memory.kind().isHost() && !memory.segment().scope().isAlive())
            throw new IllegalStateException("region '" + name + "': its memory segment's arena is already closed");
    }

    /**
     * The peer's region {@code name}, as its last {@code localInfo()} listed it.
     *
     * @throws IllegalArgumentException if the peer has no such region
     */
    public static <R> R remoteRegion(String op, String name, Map<String, R> remote) {
        R region = remote.get(name);
        if (region == null)
            throw new IllegalArgumentException(op + ": the peer has no region '" + name + "' (it has " + remote.keySet()
                    + "); if it registered one after connecting, pass its new localInfo() to updateRemote");
        return region;
    }

    /**
     * Checks a transfer's length (1 to {@link Integer#MAX_VALUE} bytes).
     *
     * @throws IllegalArgumentException if it is outside that
     */
    public static void checkLength(String op, long length) {
        if (length <= 0 || length > Integer.MAX_VALUE)
            throw new IllegalArgumentException(
                    op + ": length must be in 1.." + Integer.MAX_VALUE + " bytes, got " + length);
    }

    /**
     * Checks that {@code [offset, offset + length)} lies in region {@code name} of {@code capacity} bytes.
     *
     * @throws IndexOutOfBoundsException if it does not
     */
    public static void checkRange(String what, String name, long offset, long length, long capacity) {
        if (offset < 0 || offset > capacity || length > capacity - offset)
            throw new IndexOutOfBoundsException(what + ": range [" + offset + ", " + offset + "+" + length
                    + ") is outside region '" + name + "' of " + capacity + " bytes");
    }

    /**
     * Checks that the connection is usable: not broken by an earlier error, and connected.
     *
     * @param broken the error that broke the connection, or null
     * @param connected whether {@code connect} has run
     */
    public static void checkConnected(String op, CommException broken, boolean connected) {
        if (broken != null)
            throw new CommException(
                    op + ": the connection is broken by an earlier error: " + broken.getMessage(), broken);
        if (!connected)
            throw new IllegalStateException(op + ": endpoint is not connected; call connect(peer's localInfo()) first");
    }

    /**
     * {@link dev.unicomm.api.Endpoint#await}: the future's value within {@code timeout}; a transfer's failure is
     * rethrown as it is when unchecked, else wrapped.
     *
     * @param transfer what is waited for, for the timeout's message (e.g. {@code "RDMA transfer on mlx5_0"})
     * @param aTransfer the same with its article, for the interrupt's message (e.g. {@code "an RDMA transfer"})
     */
    public static <T> T await(CompletableFuture<T> future, Duration timeout, String transfer, String aTransfer) {
        if (future == null) throw new IllegalArgumentException("future must not be null");
        try {
            return future.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) throw re;
            throw new CommException("transfer failed: " + e.getCause(), e.getCause());
        } catch (TimeoutException e) {
            throw new CommTimeoutException(transfer, timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CommException("interrupted while waiting for " + aTransfer, e);
        }
    }
}
