package dev.unicomm.api;

import java.time.Duration;
import java.util.Set;

/**
 * A process group of {@link #size()} PEs, one per OS process, over one backend. Opened with
 * {@link Unicomm#connect()}; {@link #close()} is collective and reports buffers still open.
 */
public interface Communicator extends AutoCloseable {

    /** This PE's rank, 0 .. size-1. */
    int rank();

    /** Number of PEs. */
    int size();

    /** The backend serving this communicator. */
    BackendReport backend();

    /** What the backend can do. */
    Set<Capability> capabilities();

    /** Whether the backend has {@code capability}. */
    default boolean has(Capability capability) { return capabilities().contains(capability); }

    /** The timeout every wait of this communicator uses. */
    Duration timeout();

    /** The symmetric heap. */
    SymmetricHeap heap();

    /** One-sided RMA, signals and atomics. */
    Rma rma();

    /** The team of all PEs. */
    Team world();

    /** Blocks until every PE has called it, after completing this PE's outstanding RMA (collective). */
    void barrier();

    /** Collectives over teams: the backend's native ones where it declares them, else portable ones. */
    Collectives collectives();

    /** Opens a MoE dispatch/combine buffer (collective); native where declared, else portable. */
    MoeBuffer moe(MoeConfig config);

    /**
     * The accelerator this PE drives.
     *
     * @throws UnsupportedCapabilityException on host-only backends
     */
    DeviceRuntime device();

    /**
     * Point-to-point transfer endpoints (DLSlime-style).
     *
     * @throws UnsupportedCapabilityException unless the backend has {@link Capability#P2P_ENDPOINTS}
     */
    Endpoints endpoints();

    /**
     * Fails the whole job on purpose (as {@code ncclCommAbort}/{@code MPI_Abort} do): every rank's
     * pending and later calls end with a {@link CommAbortedException} that names this rank and
     * {@code reason}, instead of waiting for this rank until the timeout. Not collective; throws only for a
     * null {@code reason} (a store that cannot be reached is what the others will see anyway). Close the communicator after it.
     */
    void abort(String reason);

    /** Closes the communicator (collective); open buffers are reported and released. */
    @Override void close();
}
