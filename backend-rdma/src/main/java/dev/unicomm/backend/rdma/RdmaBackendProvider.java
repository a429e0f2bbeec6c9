package dev.unicomm.backend.rdma;

import dev.unicomm.api.Capability;
import dev.unicomm.api.Endpoints;
import dev.unicomm.backend.rdma.internal.Devices;
import dev.unicomm.backend.rdma.internal.RdmaCommunicator;
import dev.unicomm.spi.Availability;
import dev.unicomm.spi.BackendCommunicator;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.BackendPriority;
import dev.unicomm.spi.CommBackendProvider;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code rdma} backend: RC queue pairs over rdma-core's verbs between every pair of PEs; each
 * PE's symmetric heap is one registered memory region whose key travels through the rendezvous
 * store. Natives load on the first {@link #availability()} / {@link #open}.
 *
 * <p>Settings ({@code -Dunicomm.rdma.X} or {@code UNICOMM_RDMA_X}): {@code rdma.device} (default: the
 * first device with an ACTIVE port), {@code rdma.port} (1), {@code rdma.gid_index} (-1: a RoCE v2 GID).
 */
public final class RdmaBackendProvider implements CommBackendProvider {
    /** Above the shared-memory backend: with a working NIC, RDMA is the better default across hosts. */
    public static final int PRIORITY = BackendPriority.NETWORK;

    @Override
    public String name() {
        return "rdma";
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public Set<Capability> capabilities() {
        return EnumSet.of(
                Capability.RMA,
                Capability.NONBLOCKING_RMA,
                Capability.ATOMICS,
                Capability.SIGNALS,
                Capability.TEAMS,
                Capability.P2P_ENDPOINTS,
                Capability.MULTI_PROCESS,
                Capability.MULTI_HOST);
    }

    @Override
    public Availability availability() {
        try {
            return Devices.availability();
        } catch (Throwable t) {
            return Availability.no("probing RDMA devices failed: " + t, t, "report this as a bug in backend-rdma");
        }
    }

    @Override
    public BackendCommunicator open(BackendContext context) {
        availability().ensureAvailable(this);
        return RdmaCommunicator.open(context, RdmaEndpoints.get());
    }

    @Override
    public Optional<Endpoints> endpoints() {
        return Optional.of(RdmaEndpoints.get());
    }
}
