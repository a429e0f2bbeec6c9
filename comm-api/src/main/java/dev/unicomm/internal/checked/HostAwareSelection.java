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
        String refused = refusal(registry, name, hosts);
        if (refused != null) throw new CommException(refused);
        if (hosts.singleHost() || name != null) return registry.select(name);
        return BackendRegistry.of(registry.providers().stream()
                        .filter(HostAwareSelection::spansHosts)
                        .toList())
                .select(null);
    }

    /**
     * Why this job cannot run on these hosts (the backend named, or every backend here, cannot span them),
     * or {@code null}: rank 0's verdict for every rank. Only the hosts are judged here; whether a backend is
     * available, or a name known, each rank finds out in {@link #select}, as on one host.
     */
    public static String refusal(BackendRegistry registry, String name, HostTopology hosts) {
        if (hosts.singleHost()) return null;
        List<CommBackendProvider> spanning = registry.providers().stream()
                .filter(HostAwareSelection::spansHosts)
                .toList();
        if (name != null) {
            CommBackendProvider p = registry.providers().stream()
                    .filter(x -> x.name().equals(name))
                    .findFirst()
                    .orElse(null);
            if (p == null || spansHosts(p)) return null;
            return "backend '" + p.name() + "' cannot span hosts, but this job runs on " + hosts + "; "
                    + alternatives(spanning);
        }
        if (spanning.isEmpty())
            return "this job runs on " + hosts + ", but no backend on the class path can span hosts ("
                    + registry.knownNames() + " cannot); " + alternatives(spanning);
        return null;
    }

    private static boolean spansHosts(CommBackendProvider p) {
        return p.capabilities().contains(Capability.MULTI_HOST);
    }

    private static String alternatives(List<CommBackendProvider> spanning) {
        if (spanning.isEmpty())
            return "add one that can: backend-ucx (any network), backend-rdma (RDMA NICs), backend-nvshmem (NVIDIA GPUs)";
        return "backends here that can: "
                + spanning.stream()
                        .map(p -> p.name()
                                + (p.availability().available()
                                        ? " (available)"
                                        : " (unavailable: " + p.availability().cause() + ")"))
                        .collect(Collectors.joining(", "))
                + "; name one with UNICOMM_BACKEND";
    }
}
