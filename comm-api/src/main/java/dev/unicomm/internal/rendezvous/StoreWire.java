package dev.unicomm.internal.rendezvous;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.ProtocolException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * The store's wire format. A frame is a big-endian {@code int} body length followed by the body;
 * a body starts with a one-byte message type and an {@code int} request id, then the type's
 * fields. Byte strings are an {@code int} length followed by the bytes; text is UTF-8. Every
 * length is checked against a limit before anything is allocated.
 */
final class StoreWire {
    private StoreWire() {}

    static final int MAGIC = 0x55434D53; // "UCMS"
    static final short VERSION = 1;

    /** Largest value a rank may store. */
    static final int MAX_VALUE_BYTES = 16 << 20;
    /** Largest key (UTF-8 bytes). */
    static final int MAX_KEY_BYTES = 4096;
    /** A job's identity in the hello (optional, after the token): what its launcher calls the job. */
    static final int MAX_JOB_ID_BYTES = 256;
    /** Largest reason / error text (UTF-8 bytes). */
    static final int MAX_TEXT_BYTES = 16 << 10;
    /** Largest frame from an authenticated rank: a value plus its key and headers. */
    static final int MAX_FRAME = MAX_VALUE_BYTES + MAX_KEY_BYTES + 64;
    /** Largest frame before authentication: only a hello fits. */
    static final int MAX_HELLO_FRAME = 1024 + MAX_KEY_BYTES;

    // Requests (rank -> host).
    static final byte HELLO = 1, SET = 2, GET = 3, ADD = 4, CONTAINS = 5, ABORT = 6, BYE = 7;
    // Replies (host -> rank). ABORTED may also arrive unasked, with request id 0.
    static final byte OK = 20, VALUE = 21, LONG = 22, BOOL = 23, ERROR = 24, TIMEOUT = 25, ABORTED = 26;
    /**
     * Elastic mode only (host -> rank, unasked with request id 0, or the answer to a request of an older
     * generation): i32 failure epoch, i32 count, that many i32 failed job ranks, text reason.
     */
    static final byte RANK_FAILED = 27;
    /**
     * Liveness (see {@link Liveness}): a rank sends PING, request id 0 and no body, every
     * {@link Liveness#PING_INTERVAL}; the host answers each with PONG, request id 0.
     */
    static final byte PING = 8, PONG = 28;

    /** Reads one frame body; {@link EOFException} at a clean end of stream, {@link ProtocolException} if too large. */
    static byte[] readFrame(DataInputStream in, int maxBody) throws IOException {
        int len = in.readInt();
        if (len < 5 || len > maxBody)
            throw new ProtocolException("frame of " + Integer.toUnsignedString(len) + " bytes; allowed 5.." + maxBody);
        // readNBytes grows its buffer as bytes arrive, so a peer that only announces a large frame costs nothing.
        byte[] body = in.readNBytes(len);
        if (body.length != len) throw new EOFException("stream ended inside a frame of " + len + " bytes");
        return body;
    }

    /** Writes one frame and flushes. Callers serialize writes on one stream. */
    static void writeFrame(OutputStream out, byte[] body) throws IOException {
        byte[] header = {
            (byte) (body.length >>> 24), (byte) (body.length >>> 16), (byte) (body.length >>> 8), (byte) body.length
        };
        out.write(header);
        out.write(body);
        out.flush();
    }

    /** Builds one message body. */
    static final class Writer {
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        private final DataOutputStream out = new DataOutputStream(bytes);

        Writer(byte type, int requestId) {
            u8(type);
            i32(requestId);
        }

        Writer u8(int v) {
            return put(o -> o.writeByte(v));
        }

        Writer i16(int v) {
            return put(o -> o.writeShort(v));
        }

        Writer i32(int v) {
            return put(o -> o.writeInt(v));
        }

        Writer i64(long v) {
            return put(o -> o.writeLong(v));
        }

        Writer bytes(byte[] v) {
            i32(v.length);
            return put(o -> o.write(v, 0, v.length));
        }

        /** A possibly absent byte string: length -1 means null. */
        Writer optionalBytes(byte[] v) {
            if (v == null) return i32(-1);
            return bytes(v);
        }

        Writer text(String s) {
            return bytes(s.getBytes(StandardCharsets.UTF_8));
        }

        byte[] build() {
            return bytes.toByteArray();
        }

        /** Appends one field (writing to memory does not fail). */
        private Writer put(Field field) {
            try {
                field.writeTo(out);
            } catch (IOException e) {
                throw new AssertionError(e);
            }
            return this;
        }

        private interface Field {
            void writeTo(DataOutputStream out) throws IOException;
        }
    }

    /** Reads one message body; every malformed field is a {@link ProtocolException}. */
    static final class Reader {
        private final ByteBuffer buf;
        final byte type;
        final int requestId;

        Reader(byte[] body) throws ProtocolException {
            this.buf = ByteBuffer.wrap(body);
            this.type = u8();
            this.requestId = i32();
        }

        byte u8() throws ProtocolException {
            return need(1).get();
        }

        int i16() throws ProtocolException {
            return need(2).getShort();
        }

        int i32() throws ProtocolException {
            return need(4).getInt();
        }

        long i64() throws ProtocolException {
            return need(8).getLong();
        }

        /** The body, holding at least {@code n} more bytes. */
        private ByteBuffer need(int n) throws ProtocolException {
            if (buf.remaining() < n) throw truncated();
            return buf;
        }

        byte[] bytes(int max, String what) throws ProtocolException {
            byte[] v = optionalBytes(max, what);
            if (v == null) throw new ProtocolException(what + " is missing");
            return v;
        }

        byte[] optionalBytes(int max, String what) throws ProtocolException {
            int len = i32();
            if (len == -1) return null;
            if (len < 0 || len > max) throw new ProtocolException(what + " of " + len + " bytes; allowed 0.." + max);
            if (len > buf.remaining()) throw truncated();
            byte[] v = new byte[len];
            buf.get(v);
            return v;
        }

        String text(int max, String what) throws ProtocolException {
            byte[] b = bytes(max, what);
            try {
                return StandardCharsets.UTF_8
                        .newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(b))
                        .toString();
            } catch (CharacterCodingException e) {
                throw new ProtocolException(what + " is not valid UTF-8");
            }
        }

        /** Whether bytes are left (an optional trailing field follows). */
        boolean hasMore() {
            return buf.hasRemaining();
        }

        /** The body must have no bytes left over. */
        void end() throws ProtocolException {
            if (buf.hasRemaining())
                throw new ProtocolException(buf.remaining() + " unexpected trailing bytes in message type " + type);
        }

        private static ProtocolException truncated() {
            return new ProtocolException("message is truncated");
        }
    }
}
