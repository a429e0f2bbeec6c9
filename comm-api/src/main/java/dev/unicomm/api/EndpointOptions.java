package dev.unicomm.api;

import java.time.Duration;

/**
 * Where and how an endpoint talks.
 *
 * @param device       device name; {@code null} picks the first device with an ACTIVE port of {@code linkType}
 * @param port         port number (from 1)
 * @param gidIndex     GID index; {@code -1} picks one: a RoCE v2 GID (IPv4-mapped first) on RoCE, none
 *                     (addressing by LID) on InfiniBand
 * @param linkType     RoCE (Ethernet link layer) or InfiniBand; must match the port's link layer
 * @param queuePairs   RC queue pairs the endpoint stripes batched work over (1..64); both sides must agree
 * @param busyPoll     poll completions in a spinning thread while work is outstanding (lowest latency),
 *                     instead of sleeping on completion events (least CPU)
 * @param timeout      limit of the blocking conveniences ({@link Endpoint#await}) and of waiting for
 *                     send-queue space
 */
public record EndpointOptions(
        String device, int port, int gidIndex, LinkType linkType, int queuePairs, boolean busyPoll, Duration timeout) {

    /** Link layers. */
    public enum LinkType {
        ROCE,
        INFINIBAND
    }

    /** Most queue pairs per endpoint. */
    public static final int MAX_QUEUE_PAIRS = 64;

    public EndpointOptions {
        if (port < 1) throw new IllegalArgumentException("port must be >= 1, got " + port);
        if (gidIndex < -1)
            throw new IllegalArgumentException("gidIndex must be >= -1 (-1 = pick one), got " + gidIndex);
        if (linkType == null) throw new IllegalArgumentException("linkType must not be null (ROCE or INFINIBAND)");
        if (queuePairs < 1 || queuePairs > MAX_QUEUE_PAIRS)
            throw new IllegalArgumentException("queuePairs must be in 1.." + MAX_QUEUE_PAIRS + ", got " + queuePairs);
        if (timeout == null || timeout.isNegative() || timeout.isZero())
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
    }

    /** The first usable device, port 1, a RoCE v2 GID, one QP, busy polling, 60 s timeout. */
    public static EndpointOptions defaults() {
        return new EndpointOptions(null, 1, -1, LinkType.ROCE, 1, true, Duration.ofSeconds(60));
    }

    /** A copy on another device. */
    public EndpointOptions withDevice(String name) {
        return new EndpointOptions(name, port, gidIndex, linkType, queuePairs, busyPoll, timeout);
    }

    /** A copy on another port. */
    public EndpointOptions withPort(int number) {
        return new EndpointOptions(device, number, gidIndex, linkType, queuePairs, busyPoll, timeout);
    }

    /** A copy with another GID index. */
    public EndpointOptions withGidIndex(int index) {
        return new EndpointOptions(device, port, index, linkType, queuePairs, busyPoll, timeout);
    }

    /** A copy with another link type. */
    public EndpointOptions withLinkType(LinkType type) {
        return new EndpointOptions(device, port, gidIndex, type, queuePairs, busyPoll, timeout);
    }

    /** A copy with another number of queue pairs. */
    public EndpointOptions withQueuePairs(int n) {
        return new EndpointOptions(device, port, gidIndex, linkType, n, busyPoll, timeout);
    }

    /** A copy with busy polling on or off (off: event-driven completions). */
    public EndpointOptions withBusyPoll(boolean on) {
        return new EndpointOptions(device, port, gidIndex, linkType, queuePairs, on, timeout);
    }

    /** A copy with another timeout. */
    public EndpointOptions withTimeout(Duration t) {
        return new EndpointOptions(device, port, gidIndex, linkType, queuePairs, busyPoll, t);
    }
}
