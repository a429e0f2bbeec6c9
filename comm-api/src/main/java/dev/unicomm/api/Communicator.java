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
    default boolean has(Capability capability) {
        return capabilities().contains(capability);
    }

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
     * Opens a MoE buffer that keeps the experts where the original job of {@code mask.jobSize()}
     * ranks placed them and masks the inactive ranks' experts (collective; semantics §7.7). {@code config}
     * is the original one ({@code numExperts} divisible by {@code mask.jobSize()}); ids everywhere are
     * the original numbering. Active job rank {@code mask.activeJobRanks()[i]} is served by this
     * communicator's rank {@code i}, so the mask names exactly {@link #size()} ranks. Top-k entries
     * naming an inactive rank's expert are dropped and counted per token ({@code droppedPerToken} of
     * the dispatch results); combine sums only live contributions. Every rank must pass the same mask.
     *
     * @throws IllegalArgumentException if the mask does not fit {@code config} or this communicator
     * @throws UnsupportedOperationException where the communicator is not unicomm's validating layer
     */
    default MoeBuffer moe(MoeConfig config, ExpertMask mask) {
        throw new UnsupportedOperationException(
                "moe(config, mask) is implemented by the communicators Unicomm.connect returns, not by "
                        + getClass().getSimpleName());
    }

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

    /**
     * Elastic mode ({@link Capability#ELASTIC}, {@code unicomm.elastic=true}): after a
     * {@link RankFailedException}, every survivor calls this (collective among the survivors) and gets a
     * new communicator over the ranks still alive, renumbered densely in their old order
     * ({@link #jobRanks()} maps the new ranks to the job's). This communicator is closed by it (its
     * buffers, MoE buffers and teams released without waiting for the dead); reopen what you need on
     * the new one. Like ULFM's {@code MPI_Comm_shrink} / {@code ncclCommShrink}; a restarted rank
     * cannot rejoin (no grow yet). If another rank dies during the shrink, the shrink starts over
     * with it excluded.
     *
     * @throws UnsupportedCapabilityException if the communicator was not opened in elastic mode on a backend with ELASTIC
     * @throws IllegalStateException if no rank of this communicator is known to have failed
     * @throws CommTimeoutException if the survivors do not agree within the timeout
     */
    default Communicator shrink() {
        throw new UnsupportedCapabilityException(backend().name(), Capability.ELASTIC, "shrink()");
    }

    /** The job rank (the rank at connect) of each rank of this communicator: the identity until a {@link #shrink()}. */
    default int[] jobRanks() {
        int[] r = new int[size()];
        for (int i = 0; i < r.length; i++) r[i] = i;
        return r;
    }

    /**
     * Which algorithm each collective and MoE call of this rank ran, counted since connect and keyed
     * {@code operation/algorithm} in lower case: {@code allreduce/two_level}, {@code allgather/inline},
     * {@code moe.dispatch/hierarchical}, {@code moe.combine/flat}, ... (the portable implementations'
     * names are listed in docs/collectives.md). Descriptive, for reports and tests: reading it moves no
     * data and is not collective. Calls of an implementation that does not say (native collectives, a
     * backend's own MoE) are counted under algorithm {@code native}; communicators not opened by
     * {@link Unicomm#connect()} return an empty map.
     */
    default java.util.Map<String, Long> algorithmCounts() {
        return java.util.Map.of();
    }

    /**
     * Which ranks share a host, agreed by every rank at connect. The default, for communicators that
     * were not opened by {@link Unicomm#connect()} (test doubles), puts every rank on one host.
     */
    default HostTopology topology() {
        return HostTopology.singleHost(rank(), size(), "localhost");
    }

    /**
     * The team of the ranks on this rank's host (OpenSHMEM's {@code SHMEM_TEAM_NODE}), for hierarchical
     * algorithms. Collective over the world the first time (every rank calls it); the same team after.
     * Needs each host's ranks evenly spaced (node-major or round-robin launch), as teams are strided.
     *
     * @throws UnsupportedOperationException on communicators that were not opened by {@link Unicomm#connect()}
     */
    default Team nodeTeam() {
        throw new UnsupportedOperationException(
                "nodeTeam() is implemented by the communicators Unicomm.connect returns, not by "
                        + getClass().getSimpleName());
    }

    /** Closes the communicator (collective); open buffers are reported and released. */
    @Override
    void close();
}
