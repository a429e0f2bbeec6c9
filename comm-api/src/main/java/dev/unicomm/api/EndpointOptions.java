package dev.unicomm.api;

/**
 * Where and how an endpoint talks.
 *
 * @param device       device name; {@code null} picks the first device
 * @param port         port number (from 1)
 * @param gidIndex     GID index for RoCE; {@code -1} picks a RoCE v2 GID
 * @param linkType     RoCE or InfiniBand
 * @param queuePairs   RC queue pairs the endpoint stripes work over (>= 1)
 * @param busyPoll     poll completions in a spinning thread (lowest latency) instead of waiting on events
 */
public record EndpointOptions(String device, int port, int gidIndex, LinkType linkType, int queuePairs,
                              boolean busyPoll) {

    /** Link layers. */
    public enum LinkType { ROCE, INFINIBAND }

    public EndpointOptions {
        if (port < 1) throw new IllegalArgumentException("port must be >= 1, got " + port);
        if (gidIndex < -1) throw new IllegalArgumentException("gidIndex must be >= -1, got " + gidIndex);
        if (linkType == null) throw new IllegalArgumentException("linkType must not be null");
        if (queuePairs < 1) throw new IllegalArgumentException("queuePairs must be >= 1, got " + queuePairs);
    }

    /** The first device, port 1, a RoCE v2 GID, one QP, busy polling. */
    public static EndpointOptions defaults() { return new EndpointOptions(null, 1, -1, LinkType.ROCE, 1, true); }

    /** A copy on another device. */
    public EndpointOptions withDevice(String name) { return new EndpointOptions(name, port, gidIndex, linkType, queuePairs, busyPoll); }
}
