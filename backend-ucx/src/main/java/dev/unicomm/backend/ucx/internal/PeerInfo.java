package dev.unicomm.backend.ucx.internal;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * What a PE publishes in the rendezvous store at open: its UCP worker address, where its heap starts
 * and how long it is, and the heap's packed remote key ({@code ucp_rkey_pack}).
 */
record PeerInfo(byte[] workerAddress, long heapBase, long heapBytes, byte[] rkey) {
    private static final int MAGIC = 0x55435831; // "UCX1"
    private static final int MAX_BLOB = 1 << 20;

    byte[] encode() {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(MAGIC);
            out.writeInt(workerAddress.length);
            out.write(workerAddress);
            out.writeLong(heapBase);
            out.writeLong(heapBytes);
            out.writeInt(rkey.length);
            out.write(rkey);
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static PeerInfo decode(byte[] data, int pe) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
            if (in.readInt() != MAGIC)
                throw new IllegalStateException(
                        "PE " + pe + " published no ucx peer record (another backend or version?)");
            byte[] address = blob(in, pe);
            long base = in.readLong(), length = in.readLong();
            return new PeerInfo(address, base, length, blob(in, pe));
        } catch (IOException e) {
            throw new IllegalStateException("PE " + pe + " published a truncated ucx peer record", e);
        }
    }

    private static byte[] blob(DataInputStream in, int pe) throws IOException {
        int n = in.readInt();
        if (n <= 0 || n > MAX_BLOB)
            throw new IllegalStateException("PE " + pe + " published a ucx record field of " + n + " bytes");
        return in.readNBytes(n);
    }
}
