package dev.unicomm.backend.rdma.internal;

/** A 128-bit GID as two big-endian halves; {@link #toString()} is ibv_devinfo's form. */
public record Gid(long hi, long lo) {

    public boolean isZero() {
        return hi == 0 && lo == 0;
    }

    /** Whether this is an IPv4-mapped address ({@code ::ffff:a.b.c.d}), RoCE's usual GID for IPv4. */
    public boolean isIpv4Mapped() {
        return hi == 0 && (lo >>> 32) == 0xffffL;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            long half = i < 4 ? hi : lo;
            int group = (int) (half >>> (48 - 16 * (i & 3))) & 0xffff;
            if (i > 0) b.append(':');
            b.append(String.format("%04x", group));
        }
        return b.toString();
    }

    /** The short form: {@code ::ffff:10.77.0.1} for IPv4-mapped GIDs, else {@link #toString()}. */
    public String display() {
        if (!isIpv4Mapped()) return toString();
        long v4 = lo & 0xffffffffL;
        return "::ffff:" + (v4 >>> 24) + "." + ((v4 >>> 16) & 0xff) + "." + ((v4 >>> 8) & 0xff) + "." + (v4 & 0xff);
    }
}
