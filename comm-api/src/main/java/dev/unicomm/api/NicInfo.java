package dev.unicomm.api;

import java.util.List;

/**
 * One RDMA device.
 *
 * @param name  device name ({@code mlx5_0}, {@code rxe0})
 * @param ports its ports
 */
public record NicInfo(String name, List<Port> ports) {
    public NicInfo { ports = List.copyOf(ports); }

    /**
     * One port of a device.
     *
     * @param number    port number (from 1)
     * @param state     port state name (e.g. {@code ACTIVE})
     * @param linkLayer {@code InfiniBand} or {@code Ethernet}
     * @param activeMtu active MTU in bytes
     * @param gids      the port's non-zero GIDs, index → text form
     */
    public record Port(int number, String state, String linkLayer, int activeMtu, List<String> gids) {
        public Port { gids = List.copyOf(gids); }
    }
}
