package dev.unicomm.spi;

import dev.unicomm.api.Capability;
import dev.unicomm.api.Endpoints;
import java.util.Optional;
import java.util.Set;

/**
 * Entry point of a backend, found with {@link java.util.ServiceLoader}. Constructors must be
 * cheap and never load native code: natives load lazily in {@link #availability()} or
 * {@link #open}.
 */
public interface CommBackendProvider {

    /** Unique short name ({@code shm}, {@code rdma}, {@code nvshmem}, {@code ascend}). */
    String name();

    /**
     * Version of the backend artifact: by default the {@code Implementation-Version} of the jar that holds
     * the provider (unicomm's build writes it into every jar's manifest), else, on the module path (where
     * a named module's package has no manifest version), the version its module descriptor carries;
     * {@code dev} when run from classes.
     */
    default String version() {
        String v = getClass().getPackage().getImplementationVersion();
        if (v == null && getClass().getModule().getDescriptor() != null)
            v = getClass().getModule().getDescriptor().rawVersion().orElse(null);
        return v == null ? "dev" : v;
    }

    /** Higher wins when the user names no backend. */
    int priority();

    /** What the backend can do (a stable vocabulary; the kit skips rules by it). */
    Set<Capability> capabilities();

    /**
     * Whether the backend can open here. Never throws: probes that the hardware really works (at least
     * one verbs device, one CUDA device, …) and keeps the root cause.
     */
    Availability availability();

    /**
     * {@link #availability()} with the backend's settings at hand ({@code unicomm.X} / {@code UNICOMM_X}),
     * for probes that depend on configuration (which device, which library path). The registry calls
     * this one; the default ignores the settings, so providers that need none implement only
     * {@link #availability()}. Never throws.
     */
    default Availability availability(BackendSettings settings) {
        return availability();
    }

    /**
     * Opens this PE's side of a communicator. Collective: every rank of the job calls it.
     *
     * @throws dev.unicomm.api.CommException if the backend cannot start
     */
    BackendCommunicator open(BackendContext context);

    /**
     * Point-to-point endpoints usable without a communicator (DLSlime style), for backends that
     * declare {@code P2P_ENDPOINTS}; loads natives lazily like {@link #open}.
     */
    default Optional<Endpoints> endpoints() {
        return Optional.empty();
    }
}
