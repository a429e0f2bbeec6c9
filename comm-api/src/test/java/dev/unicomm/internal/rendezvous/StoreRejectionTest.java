package dev.unicomm.internal.rendezvous;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Issue 18, finding 7: a rank the store turns away fails the job at once, not after rank 0's timeout. */
@Timeout(600)
class StoreRejectionTest {

    /**
     * Issue 18 made a rejected rank of the job's own user fail the job at once; issue 45 showed that such
     * a rank is just as likely a second job of that user on the same port, which then killed a healthy
     * job. A rejected connection is now a stranger: only it is told, and the job's waits go on.
     */
    @Test
    void aRankWithAWrongTokenIsToldWhyAndTheWaitingRanksGoOn() throws Exception {
        try (StoreServer s = StoreServer.start(
                        InetAddress.getLoopbackAddress(), 0, 2, "job-token", null, Duration.ofSeconds(5));
                TcpStore rank0 = TcpStore.connect(
                        "127.0.0.1", s.port(), 0, 2, "job-token", null, Duration.ofSeconds(60), null)) {
            CompletableFuture<byte[]> waiting = CompletableFuture.supplyAsync(() -> rank0.get("from-rank-1"));
            CommException rejected = assertThrows(
                    CommException.class,
                    () -> TcpStore.connect(
                            "127.0.0.1", s.port(), 1, 2, "another-job", null, Duration.ofSeconds(10), null));
            assertTrue(rejected.getMessage().contains("wrong token"), rejected.getMessage());
            Thread.sleep(300); // an abort, had there been one, has reached rank 0 by now
            assertFalse(waiting.isDone(), "rank 0's wait must not end because of a stranger");
            try (TcpStore rank1 =
                    TcpStore.connect("127.0.0.1", s.port(), 1, 2, "job-token", null, Duration.ofSeconds(10), null)) {
                rank1.set("from-rank-1", new byte[] {9});
                assertEquals(9, waiting.get(20, TimeUnit.SECONDS)[0]);
            }
            rank0.checkHealthy();
        }
    }

    @Test
    void aStrangerClaimingAJoinedRankIsTurnedAwayWithoutHurtingTheJob() throws Exception {
        try (StoreServer s = StoreServer.start(
                        InetAddress.getLoopbackAddress(), 0, 2, "job-token", null, Duration.ofSeconds(5));
                TcpStore rank0 =
                        TcpStore.connect("127.0.0.1", s.port(), 0, 2, "job-token", null, Duration.ofSeconds(10), null);
                TcpStore rank1 = TcpStore.connect(
                        "127.0.0.1", s.port(), 1, 2, "job-token", null, Duration.ofSeconds(10), null)) {
            for (int r = 0; r < 2; r++) {
                int claimed = r;
                assertThrows(
                        CommException.class,
                        () -> TcpStore.connect(
                                "127.0.0.1", s.port(), claimed, 2, "guess", null, Duration.ofSeconds(5), null));
            }
            rank0.set("still", new byte[] {7});
            assertEquals(7, rank1.get("still")[0]);
            rank0.checkHealthy();
        }
    }

    /**
     * The other side of the fail-fast rule: a process of another user that guesses a rank number and
     * presents a wrong token is turned away without aborting the job (else anyone on the host could
     * kill any job at start-up). Needs root to run the stranger as {@code nobody}.
     */
    @Test
    void aStrangerOfAnotherUserCannotAbortTheJob(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(
                "0".equals(uid()) && java.nio.file.Files.isExecutable(java.nio.file.Path.of("/usr/sbin/runuser")),
                "needs root and runuser to start a process of another user");
        java.nio.file.Path src = dir.resolve("Stranger.java");
        java.nio.file.Files.writeString(src, """
                import java.io.*; import java.net.*;
                public class Stranger { public static void main(String[] a) throws Exception {
                  try (Socket s = new Socket(InetAddress.getLoopbackAddress(), Integer.parseInt(a[0]))) {
                    ByteArrayOutputStream b = new ByteArrayOutputStream(); DataOutputStream d = new DataOutputStream(b);
                    d.writeByte(1); d.writeInt(1); d.writeInt(0x55434D53); d.writeShort(1); d.writeInt(1); d.writeInt(2);
                    byte[] t = "a-guess".getBytes(); d.writeInt(t.length); d.write(t);
                    DataOutputStream o = new DataOutputStream(s.getOutputStream()); o.writeInt(b.size()); o.write(b.toByteArray()); o.flush();
                    DataInputStream in = new DataInputStream(s.getInputStream()); in.readInt(); System.out.println("reply " + in.readByte());
                  } } }
                """);
        for (java.nio.file.Path p : new java.nio.file.Path[] {dir, src})
            java.nio.file.Files.setPosixFilePermissions(
                    p, java.nio.file.attribute.PosixFilePermissions.fromString(p == dir ? "rwxr-xr-x" : "rw-r--r--"));
        try (StoreServer s = StoreServer.start(
                        InetAddress.getLoopbackAddress(), 0, 2, "job-token", null, Duration.ofSeconds(10));
                TcpStore rank0 = TcpStore.connect(
                        "127.0.0.1", s.port(), 0, 2, "job-token", null, Duration.ofSeconds(30), null)) {
            Process stranger = new ProcessBuilder(
                            "/usr/sbin/runuser",
                            "-u",
                            "nobody",
                            "--",
                            java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java")
                                    .toString(),
                            src.toString(),
                            Integer.toString(s.port()))
                    .redirectErrorStream(true)
                    .start();
            String said = new String(stranger.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            assertTrue(stranger.waitFor(60, TimeUnit.SECONDS), said);
            assertTrue(said.contains("reply " + StoreWire.ERROR), "the stranger must be turned away: " + said);
            Thread.sleep(500); // an abort, had there been one, has reached rank 0 by now
            rank0.checkHealthy();
            try (TcpStore rank1 =
                    TcpStore.connect("127.0.0.1", s.port(), 1, 2, "job-token", null, Duration.ofSeconds(30), null)) {
                rank1.set("fine", new byte[] {1});
                assertEquals(1, rank0.get("fine")[0]);
            }
        }
    }

    private static String uid() {
        try {
            return String.valueOf(java.nio.file.Files.getAttribute(java.nio.file.Path.of("/proc/self"), "unix:uid"));
        } catch (java.io.IOException | RuntimeException e) {
            return "?";
        }
    }

    @Test
    void warningsAboutPeersAreRateLimited() {
        AtomicInteger lines = new AtomicInteger();
        System.Logger counting = new System.Logger() {
            @Override
            public String getName() {
                return "count";
            }

            @Override
            public boolean isLoggable(Level level) {
                return true;
            }

            @Override
            public void log(Level level, java.util.ResourceBundle b, String msg, Throwable t) {
                lines.incrementAndGet();
            }

            @Override
            public void log(Level level, java.util.ResourceBundle b, String format, Object... params) {
                lines.incrementAndGet();
            }
        };
        RateLimitedLog log = new RateLimitedLog(counting, 5, 1, TimeUnit.HOURS);
        for (int i = 0; i < 1000; i++) log.warn("rejected a connection " + i);
        assertEquals(5, lines.get());
        assertEquals(995, log.suppressed());
    }
}
