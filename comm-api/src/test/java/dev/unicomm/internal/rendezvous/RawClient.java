package dev.unicomm.internal.rendezvous;

import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/** Speaks the wire protocol by hand, to play broken or hostile clients. */
final class RawClient implements AutoCloseable {
    final Socket socket;
    final DataInputStream in;

    RawClient(int port) throws IOException {
        socket = new Socket(InetAddress.getLoopbackAddress(), port);
        socket.setSoTimeout(5000);
        in = new DataInputStream(socket.getInputStream());
    }

    /** Sends a hello and returns the reply type. */
    byte hello(int rank, int size, String token) throws IOException {
        send(new StoreWire.Writer(StoreWire.HELLO, 1)
                .i32(StoreWire.MAGIC)
                .i16(StoreWire.VERSION)
                .i32(rank)
                .i32(size)
                .optionalBytes(token == null ? null : token.getBytes(StandardCharsets.UTF_8))
                .build());
        return reply().type;
    }

    void send(byte[] body) throws IOException {
        StoreWire.writeFrame(socket.getOutputStream(), body);
    }

    void sendRaw(byte[] bytes) throws IOException {
        socket.getOutputStream().write(bytes);
        socket.getOutputStream().flush();
    }

    StoreWire.Reader reply() throws IOException {
        return new StoreWire.Reader(StoreWire.readFrame(in, StoreWire.MAX_FRAME));
    }

    /** Whether the server closed this connection (end of stream within the read timeout). */
    boolean closedByServer() {
        try {
            while (true) {
                if (in.read() < 0) return true;
            }
        } catch (IOException e) {
            return !(e instanceof java.net.SocketTimeoutException);
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
