package dev.unicomm.conformance;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/** Framing of the control channel between the parent test and its worker JVMs. */
final class Wire {
    private Wire() {}

    /** First int of a worker's hello, so a stray connection is told apart. */
    static final int MAGIC = 0x554b4954; // "UKIT"

    static final int RUN = 1;
    static final int EXIT = 2;
    static final int RESULT = 3;
    /** Parent to worker, after a rule failed on some rank while others still run: abort the job's store so they stop waiting. */
    static final int ABORT = 4;
    /** Parent to worker, after a rule failed on ranks that all finished: is the job still fit for the next rule? */
    static final int PROBE = 5;
    /** Longest string or body we accept (a guard against garbage on the socket). */
    static final int MAX_BYTES = 16 << 20;

    static void writeString(DataOutputStream out, String s) throws IOException {
        writeBytes(out, s.getBytes(StandardCharsets.UTF_8));
    }

    static String readString(DataInputStream in) throws IOException {
        return new String(readBytes(in), StandardCharsets.UTF_8);
    }

    static void writeBytes(DataOutputStream out, byte[] b) throws IOException {
        out.writeInt(b.length);
        out.write(b);
    }

    static byte[] readBytes(DataInputStream in) throws IOException {
        int n = in.readInt();
        if (n < 0 || n > MAX_BYTES)
            throw new IOException("control frame of " + n + " bytes is outside 0.." + MAX_BYTES);
        byte[] b = new byte[n];
        in.readFully(b);
        return b;
    }
}
