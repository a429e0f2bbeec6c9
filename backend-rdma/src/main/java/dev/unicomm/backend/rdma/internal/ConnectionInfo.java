package dev.unicomm.backend.rdma.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one side tells the other to connect: device address, queue pairs and registered regions.
 * The byte form is versioned; a malformed or foreign blob is an {@link IllegalArgumentException}.
 */
public record ConnectionInfo(
        String device, boolean ethernet, int lid, Gid gid, int mtu, List<Qp> qps, Map<String, Region> regions) {
    private static final int MAGIC = 0x55434550; // "UCEP"
    private static final int VERSION = 1;
    private static final int MAX_QPS = 4096;
    private static final int MAX_REGIONS = 1 << 16;

    /** A queue pair's number and first packet sequence number. */
    public record Qp(int qpn, int psn) {}

    /** A peer's registered region. */
    public record Region(long address, long length, int rkey) {}

    public ConnectionInfo {
        qps = List.copyOf(qps);
        regions = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(regions));
    }

    public byte[] encode() {
        var bytes = new ByteArrayOutputStream();
        try (var out = new DataOutputStream(bytes)) {
            out.writeInt(MAGIC);
            out.writeInt(VERSION);
            out.writeUTF(device);
            out.writeBoolean(ethernet);
            out.writeInt(lid);
            out.writeLong(gid.hi());
            out.writeLong(gid.lo());
            out.writeInt(mtu);
            out.writeInt(qps.size());
            for (Qp q : qps) {
                out.writeInt(q.qpn());
                out.writeInt(q.psn());
            }
            out.writeInt(regions.size());
            for (var e : regions.entrySet()) {
                out.writeUTF(e.getKey());
                out.writeLong(e.getValue().address());
                out.writeLong(e.getValue().length());
                out.writeInt(e.getValue().rkey());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    public static ConnectionInfo decode(byte[] info) {
        if (info == null) throw new IllegalArgumentException("remote info must not be null");
        try (var in = new DataInputStream(new ByteArrayInputStream(info))) {
            if (in.readInt() != MAGIC)
                throw new IllegalArgumentException("remote info is not an RDMA endpoint's localInfo() (bad magic)");
            int v = in.readInt();
            if (v != VERSION)
                throw new IllegalArgumentException(
                        "remote info has version " + v + "; this build reads version " + VERSION);
            String device = in.readUTF();
            boolean ethernet = in.readBoolean();
            int lid = in.readInt();
            Gid gid = new Gid(in.readLong(), in.readLong());
            int mtu = in.readInt();
            if (mtu < 1 || mtu > 5)
                throw new IllegalArgumentException("remote info has MTU enum " + mtu + ", expected 1..5");
            int nq = in.readInt();
            if (nq < 1 || nq > MAX_QPS) throw new IllegalArgumentException("remote info lists " + nq + " queue pairs");
            List<Qp> qps = new ArrayList<>(nq);
            for (int i = 0; i < nq; i++) qps.add(new Qp(in.readInt(), in.readInt()));
            int nr = in.readInt();
            if (nr < 0 || nr > MAX_REGIONS) throw new IllegalArgumentException("remote info lists " + nr + " regions");
            Map<String, Region> regions = new LinkedHashMap<>();
            for (int i = 0; i < nr; i++) {
                String name = in.readUTF();
                Region r = new Region(in.readLong(), in.readLong(), in.readInt());
                if (r.length() < 0)
                    throw new IllegalArgumentException("remote region '" + name + "' has negative length");
                regions.put(name, r);
            }
            if (in.available() != 0)
                throw new IllegalArgumentException("remote info has " + in.available() + " trailing bytes");
            return new ConnectionInfo(device, ethernet, lid, gid, mtu, qps, regions);
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "remote info is truncated or malformed (" + info.length + " bytes): " + e, e);
        }
    }
}
