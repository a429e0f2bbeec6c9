package dev.unicomm.api;

import java.util.List;

/** Factory of point-to-point transfer endpoints (DLSlime's {@code available_nic} + {@code RDMAEndpoint}). */
public interface Endpoints {

    /** The NICs this backend can use, with their ports and GIDs. */
    List<NicInfo> devices();

    /** Opens an endpoint on a device/port. */
    Endpoint open(EndpointOptions options);
}
