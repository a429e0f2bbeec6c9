package dev.unicomm.internal.checked;

import dev.unicomm.api.Capability;
import dev.unicomm.api.CommException;
import dev.unicomm.api.HostTopology;
import dev.unicomm.spi.BackendRegistry;
import dev.unicomm.spi.CommBackendProvider;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Backend selection that knows the hosts: a job on several hosts gets a backend that can span them
 * ({@link Capability#MULTI_HOST}), and a job that names one that cannot fails on every rank at connect, in
 * one line that names the hosts and the backends that could, before any backend opens.
 */
public final class HostAwareSelection {
    private HostAwareSelection() {}

    /**
     * The backend for a job on {@code hosts}: {@code name} if given (and able to span them), else the
     * highest-priority available one (that can span them, when there are several hosts).
     *
     * @throws CommException if the job spans hosts and the named backend, or every backend here, cannot
     */
    public static CommBackendProvider select(BackendRegistry registry, String name, HostTopology hosts) {
        if (hosts.singleHost()) return registry.select(name);
        List<CommBackendProvider> spanning = registry.providers().stream().filter(HostAwareSelection::spansHosts).toList();
        if (name != null) {
            CommBackendProvider p = registry.select(name);
            if (!spansHosts(p))
                throw new CommException("backend '" + p.name() + "' cannot span hosts, but this job runs on " + hosts + "; "
                        + alternatives(spanning));
            return p;
        }
        if (spanning.isEmpty())
            throw new CommException("this job runs on " + hosts + ", but no backend on the class path can span hosts ("
                    + registry.knownNames() + " cannot); " + alternatives(spanning));
        return BackendRegistry.of(spanning).select(null);
    }

    /** Why {@link #select} would refuse this job on these hosts, or {@code null} (rank 0's verdict for every rank). */
    public static String refusal(BackendRegistry registry, String name, HostTopology hosts) {
        try {
            select(registry, name, hosts);
            return null;
        } catch (CommException e) {
            return e.getMessage();
        } catch (RuntimeException other) {
            return null; // not about the hosts: each rank reports it as before
        }
    }

    private static boolean spansHosts(CommBackendProvider p) {
        return p.capabilities().contains(Capability.MULTI_HOST);
    }

    private static String alternatives(List<CommBackendProvider> spanning) {
        if (spanning.isEmpty())
            return "add one that can: backend-ucx (any network), backend-rdma (RDMA NICs), backend-nvshmem (NVIDIA GPUs)";
        return "backends here that can: " + spanning.stream()
                .map(p -> p.name() + (p.availability().available() ? " (available)" : " (unavailable: " + p.availability().cause() + ")"))
                .collect(Collectors.joining(", ")) + "; name one with UNICOMM_BACKEND";
    }
}
