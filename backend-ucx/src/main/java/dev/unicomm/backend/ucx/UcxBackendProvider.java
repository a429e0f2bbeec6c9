package dev.unicomm.backend.ucx;

import dev.unicomm.api.Capability;
import dev.unicomm.api.Endpoints;
import dev.unicomm.backend.ucx.internal.UcxCommunicator;
import dev.unicomm.backend.ucx.internal.UcxProbe;
import dev.unicomm.spi.Availability;
import dev.unicomm.spi.BackendCommunicator;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.BackendPriority;
import dev.unicomm.spi.BackendSettings;
import dev.unicomm.spi.CommBackendProvider;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * The {@code ucx} backend: the SPI over UCX's UCP layer (libucp, bound with the JDK's foreign-function
 * API and loaded on the first {@link #availability()} / {@link #open}), so ranks on different hosts with
 * an ordinary network (TCP, or whatever transports UCX finds) run unicomm. Each PE's heap is one
 * {@code ucp_mem_map}'d region; worker addresses and packed rkeys travel through the rendezvous store.
 *
 * <p>Settings: {@code unicomm.ucx.library} / {@code UNICOMM_UCX_LIBRARY} (default {@code libucp.so.0}: a soname
 * or a path), {@code unicomm.ucx.progress_spin}, {@code unicomm.ucx.progress_poll_ms}, {@code unicomm.ucx.print_info}; every {@code UCX_*} variable goes to UCX unchanged
 * ({@code ucp_config_read}). See docs/backends/ucx.md.
 */
public final class UcxBackendProvider implements CommBackendProvider {
    /**
     * Just below shm: when every rank shares a host, shm (direct load/store) is the better choice and a
     * priority cannot know the job's hosts; a job across hosts names {@code UNICOMM_BACKEND=ucx} (shm
     * refuses to span hosts at open, saying so).
     */
    public static final int PRIORITY = BackendPriority.HOST - 5;

    private static final Set<Capability> CAPABILITIES = Set.copyOf(EnumSet.of(
            Capability.RMA,
            Capability.NONBLOCKING_RMA,
            Capability.ATOMICS,
            Capability.SIGNALS,
            Capability.TEAMS,
            Capability.MULTI_PROCESS,
            Capability.MULTI_HOST,
            Capability.P2P_ENDPOINTS));

    /** Cheap: libucp is not touched until {@link #availability()} or {@link #open}. */
    public UcxBackendProvider() {}

    @Override
    public String name() {
        return "ucx";
    }

    @Override
    public int priority() {
        return PRIORITY;
    }

    @Override
    public Set<Capability> capabilities() {
        return CAPABILITIES;
    }

    @Override
    public Availability availability() {
        return availability(BackendSettings.fromEnvironment());
    }

    /** Probes the library of {@code ucx.library} (default {@code libucp.so.0}): loads it, creates a context and a worker. */
    @Override
    public Availability availability(BackendSettings settings) {
        try {
            return UcxProbe.availability(library(settings));
        } catch (Throwable t) {
            return Availability.no("probing UCX failed: " + t, t, "report this as a bug in backend-ucx");
        }
    }

    @Override
    public BackendCommunicator open(BackendContext context) {
        BackendSettings settings = BackendSettings.of(context.config());
        availability(settings).ensureAvailable(this);
        return UcxCommunicator.open(context, library(settings), UcxEndpoints.get());
    }

    /** Transfer endpoints over UCX without a communicator ({@code Unicomm.endpoints("ucx")}). */
    @Override
    public Optional<Endpoints> endpoints() {
        return Optional.of(UcxEndpoints.get());
    }

    static String library(BackendSettings settings) {
        String lib = settings.get("ucx.library", UcxProbe.DEFAULT_LIBRARY);
        return lib == null || lib.isBlank() ? UcxProbe.DEFAULT_LIBRARY : lib.strip();
    }
}
