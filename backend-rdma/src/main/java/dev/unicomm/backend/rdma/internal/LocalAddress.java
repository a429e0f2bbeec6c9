package dev.unicomm.backend.rdma.internal;

import dev.unicomm.api.EndpointOptions.LinkType;

/**
 * This side's address on one port: GID (RoCE, or InfiniBand with GRH), LID (InfiniBand), MTU.
 *
 * @param gidIndex -1 on InfiniBand without GRH
 */
public record LocalAddress(String device, int port, int gidIndex, Gid gid, int lid, int mtu, boolean ethernet) {

    /** Resolves port/GID/link-type selection on an open device; errors say what exists instead. */
    public static LocalAddress resolve(DeviceContext dev, int port, int gidIndex, LinkType type) {
        DeviceContext.Port p = dev.port(port);
        if (!p.active())
            throw new IllegalStateException(
                    "device " + dev.name() + " port " + port + " is " + p.stateName() + ", not ACTIVE");
        if (type == LinkType.ROCE && !p.ethernet())
            throw new IllegalArgumentException(
                    "device " + dev.name() + " port " + port + " is InfiniBand, not RoCE: use LinkType.INFINIBAND");
        if (type == LinkType.INFINIBAND && p.ethernet())
            throw new IllegalArgumentException("device " + dev.name() + " port " + port
                    + " is Ethernet (RoCE), not InfiniBand: use LinkType.ROCE");
        if (gidIndex >= p.gidTableLength())
            throw new IllegalArgumentException("GID index " + gidIndex + " is out of range: device " + dev.name()
                    + " port " + port + " has GID indexes 0.." + (p.gidTableLength() - 1));
        if (!p.ethernet()) {
            Gid g = gidIndex >= 0 ? dev.gid(port, gidIndex) : new Gid(0, 0);
            return new LocalAddress(dev.name(), port, gidIndex, g, p.lid(), p.activeMtu(), false);
        }
        int idx = gidIndex >= 0 ? gidIndex : pickRoceV2(dev, port, p);
        Gid g;
        try {
            g = dev.gid(port, idx);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(
                    "GID index " + idx + " of device " + dev.name() + " port " + port + " is not populated", e);
        }
        if (g.isZero())
            throw new IllegalArgumentException(
                    "GID index " + idx + " of device " + dev.name() + " port " + port + " is empty (all zero)");
        return new LocalAddress(dev.name(), port, idx, g, p.lid(), p.activeMtu(), true);
    }

    /** A RoCE v2 GID, IPv4-mapped first (what DLSlime and perftest -x pick in practice). */
    private static int pickRoceV2(DeviceContext dev, int port, DeviceContext.Port p) {
        int anyV2 = -1, anyNonZero = -1;
        for (int i = 0; i < p.gidTableLength(); i++) {
            Gid g;
            try {
                g = dev.gid(port, i);
            } catch (RuntimeException e) {
                continue;
            }
            if (g.isZero()) continue;
            if (anyNonZero < 0) anyNonZero = i;
            if (Devices.gidType(dev.name(), port, i, p).equals("RoCE v2")) {
                if (g.isIpv4Mapped()) return i;
                if (anyV2 < 0) anyV2 = i;
            }
        }
        if (anyV2 >= 0) return anyV2;
        if (anyNonZero >= 0) return anyNonZero;
        throw new IllegalStateException(
                "device " + dev.name() + " port " + port + " has no GID: give its netdev an IP address");
    }
}
