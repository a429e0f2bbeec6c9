package dev.unicomm.internal.rendezvous;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.Set;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(600)
class StoreTlsTest {
    @TempDir
    Path dir;

    @Test
    void ranksTalkOverTlsAndStrangersAreKeptOut() throws Exception {
        Path ks = dir.resolve("job.p12");
        char[] pw = "job-password-1".toCharArray();
        StoreTls.createSelfSignedKeystore(ks, pw);
        assertTrue(Files.getPosixFilePermissions(ks)
                .equals(Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE)));
        SSLContext ssl = StoreTls.context(ks, pw);
        try (StoreServer s =
                        StoreServer.start(InetAddress.getLoopbackAddress(), 0, 3, "tok", ssl, Duration.ofSeconds(2));
                TcpStore a = TcpStore.connect("127.0.0.1", s.port(), 0, 3, "tok", ssl, Duration.ofSeconds(5), null);
                TcpStore b = TcpStore.connect("127.0.0.1", s.port(), 1, 3, "tok", ssl, Duration.ofSeconds(5), null)) {
            assertTrue(a.toString().contains("tls"));
            a.set("secret-route", new byte[] {1, 2, 3});
            assertArrayEquals(new byte[] {1, 2, 3}, b.get("secret-route"));

            // A client with another job's key pair fails the handshake: a clear error, no retry loop.
            Path other = dir.resolve("other.p12");
            StoreTls.createSelfSignedKeystore(other, pw);
            // (Issue 18: resets during a handshake are retried, but a certificate mismatch is named at once.)
            CommException mismatch = assertThrows(
                    CommException.class,
                    () -> TcpStore.connect(
                            "127.0.0.1",
                            s.port(),
                            2,
                            3,
                            "tok",
                            StoreTls.context(other, pw),
                            Duration.ofSeconds(30),
                            null));
            assertTrue(mismatch.getMessage().contains("certificates do not match"), mismatch.getMessage());
            // A plain-TCP client never gets in.
            assertThrows(
                    CommException.class,
                    () -> TcpStore.connect("127.0.0.1", s.port(), 2, 3, "tok", null, Duration.ofMillis(800), null));
            a.checkHealthy();
            b.add("still-serving", 1);
        }
    }

    @Test
    void badKeystoreInputIsExplained() throws Exception {
        assertThrows(IllegalArgumentException.class, () -> StoreTls.context(dir.resolve("missing.p12"), new char[6]));
        Path junk = Files.write(dir.resolve("junk.p12"), new byte[] {1, 2, 3});
        CommException e = assertThrows(CommException.class, () -> StoreTls.context(junk, "whatever".toCharArray()));
        assertTrue(e.getMessage().contains("cannot load TLS keystore"), e.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> StoreTls.createSelfSignedKeystore(junk, "long-enough".toCharArray()));
        assertThrows(
                IllegalArgumentException.class,
                () -> StoreTls.createSelfSignedKeystore(dir.resolve("x.p12"), "short".toCharArray()));
    }
}
