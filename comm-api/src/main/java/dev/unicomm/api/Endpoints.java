package dev.unicomm.api;

import java.util.List;

/**
 * Factory of point-to-point transfer endpoints (DLSlime's {@code available_nic} + {@code RDMAEndpoint}).
 * Get one from a communicator ({@link Communicator#endpoints()}) or, without any communicator, from
 * {@link Unicomm#endpoints(String)}: two endpoints in one or two processes exchange {@link Endpoint#localInfo()}
 * out of band and connect.
 */
public interface Endpoints {

    /** The NICs this backend can use, with their ports and GIDs. */
    List<NicInfo> devices();

    /** Opens an endpoint on a device/port. */
    Endpoint open(EndpointOptions options);

    /** Opens an endpoint with {@link EndpointOptions#defaults()}. */
    default Endpoint open() {
        return open(EndpointOptions.defaults());
    }

    /**
     * Endpoints of backend {@code backend} without a communicator.
     *
     * @deprecated since 2026-12-01; use {@link Unicomm#endpoints(String)}, the same call at the one front door.
     *     To be removed after 0.2.0.
     */
    @Deprecated(since = "0.1.0", forRemoval = true)
    static Endpoints load(String backend) {
        return Unicomm.endpoints(backend);
    }
}
