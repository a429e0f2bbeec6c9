package dev.unicomm.backend.ucx.internal;

import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.CRC32C;

/**
 * What a ucx endpoint hands its peer out of band: an id of the endpoint (so {@code updateRemote} can tell
 * another endpoint's info apart), its worker address, and each registered region's address, length and
 * packed rkey. A CRC32C closes the bytes: a truncated, corrupted or foreign info is refused in Java
 * before any of it reaches {@code ucp_ep_create} or {@code ucp_ep_rkey_unpack}.
 */
record EndpointInfo(long endpointId, byte[] workerAddress, Map<String, Region> regions) {
    private static final int MAGIC = 0x55435845; // "UCXE"
    private static final short VERSION = 1;
    private static final int MAX_BLOB = 1 << 20, MAX_REGIONS = 1 << 16;

    /** One registered region of the peer. */
    record Region(long address, long length, byte[] rkey) {}

    EndpointInfo {
        regions = Collections.unmodifiableMap(new LinkedHashMap<>(regions));
    }

    byte[] encode() {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (DataOutputStream out = new DataOutputStream(bytes)) {
            out.writeInt(MAGIC);
            out.writeShort(VERSION);
            out.writeLong(endpointId);
            out.writeInt(workerAddress.length);
            out.write(workerAddress);
            out.writeInt(regions.size());
            for (var e : regions.entrySet()) {
                byte[] name = e.getKey().getBytes(StandardCharsets.UTF_8);
                out.writeInt(name.length);
                out.write(name);
                out.writeLong(e.getValue().address());
                out.writeLong(e.getValue().length());
                out.writeInt(e.getValue().rkey().length);
                out.write(e.getValue().rkey());
            }
            CRC32C crc = new CRC32C();
            crc.update(bytes.toByteArray());
            out.writeInt((int) crc.getValue());
        } catch (IOException e) {
            throw new IllegalStateException(e); // a byte array stream does not fail
        }
        return bytes.toByteArray();
    }

    /** Parses a peer's {@code localInfo()}; every flaw is an {@link IllegalArgumentException} saying what is wrong. */
    static EndpointInfo decode(byte[] info) {
        if (info == null)
            throw new IllegalArgumentException("remote info must not be null (pass the peer endpoint's localInfo())");
        if (info.length < 10) throw bad("it has " + info.length + " bytes, too short");
        ByteBuffer b = ByteBuffer.wrap(info);
        if (b.getInt() != MAGIC)
            throw bad("it does not start with a ucx endpoint's magic (is it another backend's endpoint info?)");
        short v = b.getShort();
        if (v != VERSION) throw bad("its format version is " + v + ", this unicomm reads " + VERSION);
        CRC32C crc = new CRC32C();
        crc.update(info, 0, info.length - 4);
        if (info.length < 26
                || (int) crc.getValue()
                        != ByteBuffer.wrap(info, info.length - 4, 4).getInt())
            throw bad("its checksum does not match (truncated or altered on the way)");
        try {
            long id = b.getLong();
            byte[] address = blob(b, "worker address");
            if (address.length == 0) throw bad("its worker address is empty");
            int n = b.getInt();
            if (n < 0 || n > MAX_REGIONS) throw bad("it claims " + n + " regions");
            Map<String, Region> regions = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                String name = new String(blob(b, "region name"), StandardCharsets.UTF_8);
                long addr = b.getLong(), len = b.getLong();
                byte[] rkey = blob(b, "rkey of region '" + name + "'");
                if (addr == 0 || len <= 0 || addr + len < addr)
                    throw bad("region '" + name + "' has address 0x" + Long.toHexString(addr) + " and length " + len);
                if (rkey.length == 0) throw bad("region '" + name + "' has an empty rkey");
                if (regions.put(name, new Region(addr, len, rkey)) != null)
                    throw bad("region '" + name + "' appears twice");
            }
            if (b.remaining() != 4) throw bad((b.remaining() - 4) + " bytes follow the last region");
            return new EndpointInfo(id, address, regions);
        } catch (BufferUnderflowException e) {
            throw bad("it ends in the middle of a field");
        }
    }

    private static byte[] blob(ByteBuffer b, String what) {
        int len = b.getInt();
        if (len < 0 || len > MAX_BLOB || len > b.remaining()) throw bad("its " + what + " claims " + len + " bytes");
        byte[] out = new byte[len];
        b.get(out);
        return out;
    }

    private static IllegalArgumentException bad(String why) {
        return new IllegalArgumentException("remote info is not a valid ucx endpoint info: " + why);
    }
}
