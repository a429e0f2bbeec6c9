package dev.unicomm.backend.rdma;

import dev.unicomm.api.Endpoint;
import dev.unicomm.api.EndpointOptions;
import dev.unicomm.api.Endpoints;
import dev.unicomm.api.NicInfo;
import dev.unicomm.backend.rdma.internal.Devices;
import dev.unicomm.backend.rdma.internal.VerbsEndpoint;
import java.util.List;

/**
 * RDMA endpoints without a communicator, DLSlime style; users reach them through the one front door:
 * <pre>{@code
 * Endpoints rdma = Unicomm.endpoints("rdma");
 * List<NicInfo> nics = rdma.devices();                                 // available_nic()
 * try (Endpoint a = rdma.open(EndpointOptions.defaults().withDevice("rxe0"));
 *      Endpoint b = rdma.open(EndpointOptions.defaults().withDevice("rxe0"))) {
 *     a.registerRegion("buffer", Memory.of(segA));
 *     b.registerRegion("buffer", Memory.of(segB));
 *     b.connect(a.localInfo());                                        // out of band in real life
 *     a.connect(b.localInfo());
 *     a.read("buffer", new long[] {0}, new long[] {8}, 8);             // async: a.readBatch(...)
 * }
 * }</pre>
 * Inside a job, {@code communicator.endpoints()} gives the same object. Package-private: the
 * provider hands it out, so there is one door ({@code Unicomm}), not three.
 */
final class RdmaEndpoints implements Endpoints {
    private static final RdmaEndpoints INSTANCE = new RdmaEndpoints();

    private RdmaEndpoints() {}

    /** The verbs endpoint factory (natives load on first use). */
    static RdmaEndpoints get() {
        return INSTANCE;
    }

    /**
     * The RDMA devices here with ports and GIDs.
     *
     * @throws IllegalStateException if libibverbs cannot be loaded (the message has the cause and the fix)
     */
    @Override
    public List<NicInfo> devices() {
        return Devices.list();
    }

    /**
     * Opens an endpoint.
     *
     * @throws IllegalArgumentException if the device, port, link type or GID index does not exist (the message lists what does)
     * @throws IllegalStateException    if verbs are unavailable or the port is not ACTIVE
     */
    @Override
    public Endpoint open(EndpointOptions options) {
        return VerbsEndpoint.open(options);
    }
}
