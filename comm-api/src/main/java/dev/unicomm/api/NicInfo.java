package dev.unicomm.api;

import java.util.List;

/**
 * One RDMA device, as DLSlime's {@code available_nic()} lists it.
 *
 * @param name  device name ({@code mlx5_0}, {@code rxe0})
 * @param ports its ports
 */
public record NicInfo(String name, List<Port> ports) {
    public NicInfo {
        ports = List.copyOf(ports);
    }

    /**
     * One port of a device.
     *
     * @param number    port number (from 1)
     * @param state     port state name (e.g. {@code ACTIVE})
     * @param linkLayer {@code InfiniBand} or {@code Ethernet} (RoCE)
     * @param activeMtu active MTU in bytes
     * @param gids      the port's non-zero GIDs
     */
    public record Port(int number, String state, String linkLayer, int activeMtu, List<Gid> gids) {
        public Port {
            gids = List.copyOf(gids);
        }

        /** Whether the port can carry traffic now. */
        public boolean active() {
            return "ACTIVE".equals(state);
        }
    }

    /**
     * One GID table entry.
     *
     * @param index   index in the port's GID table (what {@link EndpointOptions#gidIndex()} selects)
     * @param address the GID in text form ({@code ::ffff:10.77.0.1} for IPv4-mapped RoCE GIDs)
     * @param type    {@code RoCE v2}, {@code IB/RoCE v1} or {@code IB}
     */
    public record Gid(int index, String address, String type) {}
}
