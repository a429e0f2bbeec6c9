package dev.unicomm.api;

import java.util.concurrent.CompletableFuture;

/**
 * A point-to-point RDMA endpoint with named memory regions (DLSlime's {@code RDMAEndpoint}).
 * Exchange {@link #localInfo()} out of band, {@link #connect(byte[])} once, register regions with
 * the same names on both sides, then transfer. Every transfer is asynchronous; the future
 * completes when the work completion arrives, or exceptionally with the completion status name.
 */
public interface Endpoint extends AutoCloseable {

    /** Connection info (QPs, GID, regions registered so far) to hand to the peer. */
    byte[] localInfo();

    /**
     * Connects to the peer described by {@code remoteInfo}; also learns the regions it had registered.
     *
     * @throws IllegalStateException if already connected
     */
    void connect(byte[] remoteInfo);

    /** Learns regions the peer registered after the connection (pass its newer {@link #localInfo()}). */
    void updateRemote(byte[] remoteInfo);

    /** Registers {@code memory} under {@code name}; names are unique per endpoint. */
    void registerRegion(String name, Memory memory);

    /**
     * RDMA READs {@code length} bytes from the peer's region {@code name} at each {@code remoteOffsets[i]}
     * into the local region {@code name} at {@code localOffsets[i]}.
     */
    CompletableFuture<Void> readBatch(String name, long[] remoteOffsets, long[] localOffsets, long length);

    /** RDMA WRITEs, the mirror of {@link #readBatch}. */
    CompletableFuture<Void> writeBatch(String name, long[] remoteOffsets, long[] localOffsets, long length);

    /** One RDMA WRITE with a 32-bit immediate that the peer's {@link #recv} returns. */
    CompletableFuture<Void> writeWithImm(String name, long remoteOffset, long localOffset, long length, int imm);

    /** SENDs {@code length} bytes of local region {@code name} from {@code offset}. */
    CompletableFuture<Void> send(String name, long offset, long length);

    /** Posts a receive into local region {@code name}; completes with what arrived. */
    CompletableFuture<Received> recv(String name, long offset, long length);

    /** Closes QPs and deregisters regions; outstanding futures fail. */
    @Override void close();

    /**
     * A completed receive.
     *
     * @param bytes     bytes received
     * @param immediate the immediate of a WRITE-with-immediate, if any
     */
    record Received(long bytes, java.util.OptionalInt immediate) {}
}
