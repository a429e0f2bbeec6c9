package dev.unicomm.backend.rdma.internal;

/**
 * An open verbs device with its protection domain (one {@code ibv_context} + {@code ibv_pd}).
 * Not thread-safe to close while in use; owners close it last.
 */
public final class DeviceContext implements AutoCloseable {
    /** Device limits that matter here. */
    public record Attr(
            int portCount,
            int maxQpWr,
            int maxCqe,
            int maxQpRdAtom,
            int maxQpInitRdAtom,
            int atomicCap,
            long maxMrSize) {
        /** Whether the device executes 64-bit atomics ({@code IBV_ATOMIC_HCA} or {@code IBV_ATOMIC_GLOB}). */
        public boolean hasAtomics() {
            return atomicCap != 0;
        }
    }

    /** One port's state. */
    public record Port(
            int number, int state, int activeMtu, int lid, int linkLayer, int gidTableLength, long maxMessage) {
        public static final int STATE_ACTIVE = 4;
        public static final int LINK_INFINIBAND = 1;
        public static final int LINK_ETHERNET = 2;

        public boolean active() {
            return state == STATE_ACTIVE;
        }

        public boolean ethernet() {
            return linkLayer == LINK_ETHERNET;
        }

        public String stateName() {
            return switch (state) {
                case 1 -> "DOWN";
                case 2 -> "INIT";
                case 3 -> "ARMED";
                case 4 -> "ACTIVE";
                case 5 -> "ACTIVE_DEFER";
                default -> "NOP";
            };
        }

        /** {@code InfiniBand} or {@code Ethernet} (RoCE), as ibv_devinfo prints it. */
        public String linkLayerName() {
            return ethernet() ? "Ethernet" : "InfiniBand";
        }

        /** Active MTU in bytes (enum 1..5 = 256..4096). */
        public int activeMtuBytes() {
            return mtuBytes(activeMtu);
        }
    }

    private final String name;
    private final long handle;
    private final Attr attr;
    private volatile boolean open = true;

    private DeviceContext(String name, long handle, Attr attr) {
        this.name = name;
        this.handle = handle;
        this.attr = attr;
    }

    /** Opens device {@code name} (libibverbs must be loaded). */
    public static DeviceContext open(String name) {
        Verbs.require();
        long h = Verbs.checkHandle(VerbsShim.ucv_open(name), "ibv_open_device(" + name + ")");
        long[] a = new long[8];
        try {
            Verbs.check(VerbsShim.ucv_device_attr(h, a), "ibv_query_device(" + name + ")");
        } catch (RuntimeException e) {
            VerbsShim.ucv_close(h);
            throw e;
        }
        return new DeviceContext(
                name, h, new Attr((int) a[0], (int) a[1], (int) a[2], (int) a[3], (int) a[4], (int) a[5], a[6]));
    }

    public String name() {
        return name;
    }

    public Attr attr() {
        return attr;
    }

    /** The native handle, for the shim calls of this package. */
    long handle() {
        if (!open) throw new IllegalStateException("device " + name + " is closed");
        return handle;
    }

    /** Port {@code number}'s state. */
    public Port port(int number) {
        if (number < 1 || number > attr.portCount())
            throw new IllegalArgumentException(
                    "device " + name + " has ports 1.." + attr.portCount() + ", not " + number);
        long[] p = new long[6];
        Verbs.check(VerbsShim.ucv_port_attr(handle(), number, p), "ibv_query_port(" + name + ", " + number + ")");
        return new Port(number, (int) p[0], (int) p[1], (int) p[2], (int) p[3], (int) p[4], p[5]);
    }

    /** GID {@code index} of {@code port} as two big-endian halves. */
    public Gid gid(int port, int index) {
        long[] g = new long[2];
        Verbs.check(
                VerbsShim.ucv_gid(handle(), port, index, g),
                "ibv_query_gid(" + name + ", " + port + ", " + index + ")");
        return new Gid(g[0], g[1]);
    }

    @Override
    public synchronized void close() {
        if (!open) return;
        open = false;
        VerbsShim.ucv_close(handle);
    }

    /** Bytes of MTU enum value {@code e}. */
    public static int mtuBytes(int e) {
        return e >= 1 && e <= 5 ? 128 << e : 0;
    }
}
