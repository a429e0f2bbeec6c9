package dev.unicomm.api;

import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;

/**
 * A point-to-point RDMA endpoint with named memory regions (DLSlime's {@code RDMAEndpoint}).
 *
 * <p>Use: exchange {@link #localInfo()} out of band, {@link #connect(byte[])} once (each side with
 * the other's info), register regions, then transfer. Regions are named; a transfer names a local
 * region and the peer's region of the same name, whose address, length and key came with the
 * peer's info ({@link #updateRemote} learns regions the peer registered later).
 *
 * <p>Every transfer is asynchronous: the future completes when the work completion arrives, or
 * exceptionally with a {@link CommException} naming the work-completion status (for example
 * {@code REM_ACCESS_ERR}, {@code RETRY_EXC_ERR} when the peer is gone). After an error
 * completion the connection is broken: later transfers fail at once with the same cause. Futures
 * complete on the endpoint's completion thread; do not block in their continuations.
 *
 * <p>Arguments are checked before anything is posted: unknown or unregistered regions, ranges
 * outside the local region, remote ranges outside the peer's region (by the length in its info),
 * transfers before {@link #connect}, and a closed endpoint are errors that say what was wrong.
 */
public interface Endpoint extends AutoCloseable {

    /** Connection info (device address, QPs, regions registered so far) to hand to the peer. */
    byte[] localInfo();

    /**
     * Connects to the peer described by {@code remoteInfo}; also learns the regions it had registered.
     *
     * @throws IllegalStateException    if already connected
     * @throws IllegalArgumentException if the info is malformed or incompatible (queue-pair count, link layer)
     */
    void connect(byte[] remoteInfo);

    /** Whether {@link #connect} succeeded and the endpoint is open and not broken. */
    boolean isConnected();

    /** Learns regions the peer registered after the connection (pass its newer {@link #localInfo()}). */
    void updateRemote(byte[] remoteInfo);

    /**
     * Registers {@code memory} under {@code name}; names are unique per endpoint. Host memory must be a
     * native segment (not a Java heap array); device memory needs {@link #accepts} to say yes.
     */
    void registerRegion(String name, Memory memory);

    /** Deregisters region {@code name}; later transfers naming it fail. */
    void unregisterRegion(String name);

    /** Names of the local regions. */
    List<String> regions();

    /** Whether regions may be memory of {@code kind} (host always; device memory where the NIC can reach it). */
    boolean accepts(MemoryKind kind);

    /**
     * RDMA READs {@code length} bytes from the peer's region {@code name} at each {@code remoteOffsets[i]}
     * into the local region {@code name} at {@code localOffsets[i]}, as many outstanding work requests
     * striped over the endpoint's queue pairs.
     */
    CompletableFuture<Void> readBatch(String name, long[] remoteOffsets, long[] localOffsets, long length);

    /** RDMA WRITEs, the mirror of {@link #readBatch}. */
    CompletableFuture<Void> writeBatch(String name, long[] remoteOffsets, long[] localOffsets, long length);

    /**
     * One RDMA WRITE with a 32-bit immediate; it consumes a receive the peer posted with {@link #recv},
     * which completes with the immediate and the byte count.
     */
    CompletableFuture<Void> writeWithImm(String name, long remoteOffset, long localOffset, long length, int imm);

    /** SENDs {@code length} bytes of local region {@code name} from {@code offset}; the peer must post a {@link #recv}. */
    CompletableFuture<Void> send(String name, long offset, long length);

    /** Posts a receive of up to {@code length} bytes into local region {@code name} at {@code offset}. */
    CompletableFuture<Received> recv(String name, long offset, long length);

    /**
     * Waits for {@code future} within the endpoint's timeout and returns its value; a failed transfer is
     * rethrown as its {@link CommException}, a timeout as {@link CommTimeoutException}.
     */
    <T> T await(CompletableFuture<T> future);

    /** Blocking {@link #readBatch}. */
    default void read(String name, long[] remoteOffsets, long[] localOffsets, long length) {
        await(readBatch(name, remoteOffsets, localOffsets, length));
    }

    /** Blocking {@link #writeBatch}. */
    default void write(String name, long[] remoteOffsets, long[] localOffsets, long length) {
        await(writeBatch(name, remoteOffsets, localOffsets, length));
    }

    /** Closes queue pairs and deregisters regions; outstanding futures fail. Idempotent. */
    @Override
    void close();

    /**
     * A completed receive.
     *
     * @param bytes     bytes received
     * @param immediate the immediate of a WRITE-with-immediate, if that is what arrived
     */
    record Received(long bytes, OptionalInt immediate) {}
}
