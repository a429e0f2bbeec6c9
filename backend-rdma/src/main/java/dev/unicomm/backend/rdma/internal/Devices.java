package dev.unicomm.backend.rdma.internal;

import dev.unicomm.api.NicInfo;
import dev.unicomm.spi.Availability;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Device discovery (DLSlime's {@code available_nic()}) and the availability probe. */
public final class Devices {
    private Devices() {}

    /** Names of the verbs devices (libibverbs must be loaded). */
    public static List<String> names() {
        Verbs.require();
        int n = Verbs.check(VerbsShim.ucv_device_count(), "ibv_get_device_list");
        List<String> names = new ArrayList<>(n);
        byte[] buf = new byte[256];
        for (int i = 0; i < n; i++) {
            Verbs.check(VerbsShim.ucv_device_name(i, buf, buf.length), "ibv_get_device_name");
            names.add(Verbs.text(buf));
        }
        return names;
    }

    /** Every device with its ports and non-zero GIDs. */
    public static List<NicInfo> list() {
        List<NicInfo> out = new ArrayList<>();
        for (String name : names()) {
            try (DeviceContext dev = DeviceContext.open(name)) {
                out.add(describe(dev));
            }
        }
        return out;
    }

    static NicInfo describe(DeviceContext dev) {
        List<NicInfo.Port> ports = new ArrayList<>();
        for (int p = 1; p <= dev.attr().portCount(); p++) {
            DeviceContext.Port port = dev.port(p);
            List<NicInfo.Gid> gids = new ArrayList<>();
            for (int i = 0; i < port.gidTableLength(); i++) {
                Gid g;
                try {
                    g = dev.gid(p, i);
                } catch (RuntimeException e) {
                    continue; // an unpopulated RoCE GID slot (EINVAL / ENODATA): skip it
                }
                if (!g.isZero()) gids.add(new NicInfo.Gid(i, g.display(), gidType(dev.name(), p, i, port)));
            }
            ports.add(new NicInfo.Port(p, port.stateName(), port.linkLayerName(), port.activeMtuBytes(), gids));
        }
        return new NicInfo(dev.name(), ports);
    }

    /** {@code RoCE v2}, {@code IB/RoCE v1} (from sysfs) or {@code IB} for InfiniBand ports. */
    public static String gidType(String device, int port, int index, DeviceContext.Port attr) {
        Path p = Path.of(
                "/sys/class/infiniband",
                device,
                "ports",
                Integer.toString(port),
                "gid_attrs",
                "types",
                Integer.toString(index));
        try {
            String t = Files.readString(p).trim();
            if (!t.isEmpty()) return t;
        } catch (IOException | RuntimeException e) {
            // no sysfs entry (InfiniBand ports, containers without /sys/class/infiniband)
        }
        return attr.ethernet() ? "IB/RoCE v1" : "IB";
    }

    /**
     * Probes that verbs really work here: libibverbs loads (once per process, {@link Verbs#availability()}),
     * lists devices, and one port is ACTIVE. The device part runs on every call: a port's link can come
     * up or go down while the process runs. Never throws.
     */
    public static Availability availability() {
        Availability loaded = Verbs.availability();
        if (!loaded.available()) return loaded;
        List<NicInfo> devices;
        try {
            devices = list();
        } catch (RuntimeException e) {
            return Availability.no(
                    "libibverbs loaded but listing devices failed: " + e.getMessage(),
                    e,
                    "load the kernel's RDMA modules (ib_uverbs plus the NIC's driver, or rdma_rxe for soft-RoCE) and check /dev/infiniband"
                            + Verbs.see("rdma-no-device"));
        }
        if (devices.isEmpty()) {
            return Availability.no(
                    "libibverbs loaded but found no RDMA devices",
                    "attach an RDMA NIC (InfiniBand or RoCE) with its kernel driver and ibverbs-providers, or create a soft-RoCE device:"
                            + " modprobe rdma_rxe && rdma link add rxe0 type rxe netdev <interface>"
                            + Verbs.see("rdma-no-device"));
        }
        boolean active = devices.stream().flatMap(d -> d.ports().stream()).anyMatch(p -> p.state()
                .equals("ACTIVE"));
        if (!active) {
            return Availability.no(
                    "no RDMA port is ACTIVE (devices: "
                            + devices.stream().map(NicInfo::name).toList() + ")",
                    "bring a port up: check the cable/link, the subnet manager (InfiniBand) or the netdev under the RoCE device"
                            + Verbs.see("rdma-no-active-port"));
        }
        return Availability.yes();
    }
}
