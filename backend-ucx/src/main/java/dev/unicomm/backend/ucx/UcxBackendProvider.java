package dev.unicomm.backend.ucx;

import dev.unicomm.api.Capability;
import dev.unicomm.backend.ucx.internal.UcxCommunicator;
import dev.unicomm.backend.ucx.internal.UcxProbe;
import dev.unicomm.spi.Availability;
import dev.unicomm.spi.BackendCommunicator;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.BackendPriority;
import dev.unicomm.spi.CommBackendProvider;
import java.util.EnumSet;
import java.util.Set;

/**
 * The {@code ucx} backend: the SPI over UCX's UCP layer (libucp, bound with the JDK's foreign-function
 * API and loaded on the first {@link #availability()} / {@link #open}), so ranks on different hosts with
 * an ordinary network (TCP, or whatever transports UCX finds) run unicomm. Each PE's heap is one
 * {@code ucp_mem_map}'d region; worker addresses and packed rkeys travel through the rendezvous store.
 *
 * <p>Settings: {@code unicomm.ucx.progress_spin} / {@code UNICOMM_UCX_PROGRESS_SPIN},
 * {@code unicomm.ucx.progress_poll_ms}; every {@code UCX_*} variable goes to UCX unchanged
 * ({@code ucp_config_read}). See docs/backends/ucx.md.
 */
public final class UcxBackendProvider implements CommBackendProvider {
    /**
     * Just below shm: when every rank shares a host, shm (direct load/store) is the better choice and a
     * priority cannot know the job's hosts; a job across hosts names {@code UNICOMM_BACKEND=ucx} (shm
     * refuses to span hosts at open, saying so).
     */
    public static final int PRIORITY = BackendPriority.HOST - 5;

    private static final Set<Capability> CAPABILITIES = Set.copyOf(EnumSet.of(Capability.RMA, Capability.NONBLOCKING_RMA,
            Capability.ATOMICS, Capability.SIGNALS, Capability.TEAMS, Capability.MULTI_PROCESS));

    /** Cheap: libucp is not touched until {@link #availability()} or {@link #open}. */
    public UcxBackendProvider() {}

    @Override public String name() { return "ucx"; }

    @Override public int priority() { return PRIORITY; }

    @Override public Set<Capability> capabilities() { return CAPABILITIES; }

    @Override public Availability availability() {
        try {
            return UcxProbe.availability();
        } catch (Throwable t) {
            return Availability.no("probing UCX failed: " + t, t, "report this as a bug in backend-ucx");
        }
    }

    @Override public BackendCommunicator open(BackendContext context) {
        availability().ensureAvailable(this);
        return UcxCommunicator.open(context);
    }
}
