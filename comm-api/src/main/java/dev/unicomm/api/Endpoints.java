package dev.unicomm.api;

import dev.unicomm.spi.BackendRegistry;
import dev.unicomm.spi.CommBackendProvider;
import java.util.List;

/**
 * Factory of point-to-point transfer endpoints (DLSlime's {@code available_nic} + {@code RDMAEndpoint}).
 * Get one from a communicator ({@link Communicator#endpoints()}) or, without any communicator, from
 * {@link #load(String)}: two endpoints in one or two processes exchange {@link Endpoint#localInfo()}
 * out of band and connect.
 */
public interface Endpoints {

    /** The NICs this backend can use, with their ports and GIDs. */
    List<NicInfo> devices();

    /** Opens an endpoint on a device/port. */
    Endpoint open(EndpointOptions options);

    /** Opens an endpoint with {@link EndpointOptions#defaults()}. */
    default Endpoint open() { return open(EndpointOptions.defaults()); }

    /**
     * Endpoints of backend {@code backend} (e.g. {@code "rdma"}) without a communicator, or of the
     * highest-priority available backend that offers them when {@code backend} is {@code null}.
     *
     * @throws IllegalArgumentException    if no such backend is on the class path, or it offers no endpoints
     * @throws BackendUnavailableException if it cannot run here (the message says why and how to fix it)
     */
    static Endpoints load(String backend) {
        BackendRegistry registry = BackendRegistry.load();
        CommBackendProvider p;
        if (backend != null) {
            p = registry.select(backend);
        } else {
            List<CommBackendProvider> withEndpoints = registry.providers().stream()
                    .filter(x -> x.capabilities().contains(Capability.P2P_ENDPOINTS)).toList();
            if (withEndpoints.isEmpty())
                throw new IllegalArgumentException("no backend with P2P_ENDPOINTS on the class path (add dev.unicomm:backend-rdma)");
            p = BackendRegistry.of(withEndpoints).select(null);
        }
        CommBackendProvider chosen = p;
        return chosen.endpoints().orElseThrow(() -> new IllegalArgumentException(
                "backend '" + chosen.name() + "' offers no endpoints without a communicator"));
    }
}
