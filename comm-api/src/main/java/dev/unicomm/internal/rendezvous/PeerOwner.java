package dev.unicomm.internal.rendezvous;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalInt;

/**
 * Which local user owns the other end of an accepted TCP connection, read from Linux's
 * {@code /proc/net/tcp{,6}} (the client socket's row: local port = the peer's port, remote port =
 * ours). The store uses it to tell a misconfigured rank of the job's own user (fail the job at
 * once) from a stranger (reject quietly: a stranger must not be able to abort a job).
 */
final class PeerOwner {
    private PeerOwner() {}

    private static final List<Path> TABLES = List.of(Path.of("/proc/net/tcp"), Path.of("/proc/net/tcp6"));

    /** Whether the peer of {@code socket} is a process of the user running this JVM; false when unknown. */
    static boolean isSameUser(Socket socket) {
        OptionalInt peer = uidOf(socket);
        OptionalInt self = ownUid();
        return peer.isPresent() && self.isPresent() && peer.getAsInt() == self.getAsInt();
    }

    /** The uid owning the peer's socket, if the peer is on this host and Linux tells. */
    static OptionalInt uidOf(Socket socket) {
        if (!(socket.getRemoteSocketAddress() instanceof InetSocketAddress remote) || !isLocal(remote.getAddress()))
            return OptionalInt.empty();
        String peerPort = hexPort(remote.getPort());
        String ourPort = hexPort(socket.getLocalPort());
        for (Path table : TABLES) {
            List<String> lines;
            try {
                lines = Files.readAllLines(table, StandardCharsets.US_ASCII);
            } catch (IOException | SecurityException e) {
                continue;
            }
            for (String line : lines) {
                String[] f = line.trim().split("\\s+");
                if (f.length < 8 || !f[1].endsWith(":" + peerPort) || !f[2].endsWith(":" + ourPort)) continue;
                try {
                    return OptionalInt.of(Integer.parseInt(f[7]));
                } catch (NumberFormatException e) {
                    return OptionalInt.empty();
                }
            }
        }
        return OptionalInt.empty();
    }

    private static OptionalInt ownUid() {
        try {
            return OptionalInt.of((Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
        } catch (IOException | RuntimeException e) {
            return OptionalInt.empty();
        }
    }

    private static boolean isLocal(InetAddress a) {
        if (a.isLoopbackAddress() || a.isAnyLocalAddress()) return true;
        try {
            return NetworkInterface.getByInetAddress(a) != null;
        } catch (SocketException e) {
            return false;
        }
    }

    private static String hexPort(int port) {
        return String.format("%04X", port);
    }
}
