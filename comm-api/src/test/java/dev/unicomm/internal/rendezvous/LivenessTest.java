package dev.unicomm.internal.rendezvous;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommAbortedException;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Heartbeats: a rank or a host that goes silent without closing its connection (link down, SIGSTOP, a lost
 * machine) is reported by name once the silence limit has passed, not when each wait runs into its timeout.
 */
@Timeout(120)
class LivenessTest {
    static final Duration LIMIT = Duration.ofSeconds(3);
    static final Duration LONG_WAIT = Duration.ofSeconds(60);

    @Test
    void theLimitIsHalfTheTimeoutButNeverBelowFiveSeconds() {
        assertEquals(Duration.ofSeconds(30), Liveness.silenceLimit(Duration.ofSeconds(60)));
        assertEquals(Duration.ofSeconds(5), Liveness.silenceLimit(Duration.ofSeconds(4)));
        assertEquals(Duration.ofSeconds(5), Liveness.silenceLimit(Duration.ofSeconds(10)));
        assertThrows(
                IllegalArgumentException.class,
                () -> server(2).watchLiveness(Duration.ofSeconds(1)).close());
    }

    @Test
    void aRankThatSendsNothingFailsTheJobNamingIt() throws Exception {
        try (StoreServer host = server(3).watchLiveness(LIMIT);
                TcpStore alive0 = connect(host, 0, 3).keepAlive(LIMIT);
                TcpStore alive1 = connect(host, 1, 3).keepAlive(LIMIT);
                TcpStore silent = connect(host, 2, 3)) { // no heartbeat: as if stopped, or behind a dead link
            long start = System.nanoTime();
            CommAbortedException e = assertThrows(CommAbortedException.class, () -> alive0.get("never-set", LONG_WAIT));
            double seconds = (System.nanoTime() - start) / 1e9;
            assertEquals(2, e.failedRank(), e.getMessage());
            assertTrue(e.getMessage().contains("rank 2 sent nothing to the rendezvous store for 3 s"), e.getMessage());
            assertTrue(seconds < LIMIT.toSeconds() + 3, "took " + seconds + " s");
            // Every rank is told (the notice to a rank that is not waiting may still be on its way: poll, at most 5 s).
            assertEquals(
                    2,
                    TcpStoreTest.abortSeenBy(alive1, "rank 1 was never told that rank 2 failed")
                            .failedRank());
        }
    }

    @Test
    void ranksThatPingStayInTheJobPastTheLimit() throws Exception {
        try (StoreServer host = server(2).watchLiveness(LIMIT);
                TcpStore r0 = connect(host, 0, 2).keepAlive(LIMIT);
                TcpStore r1 = connect(host, 1, 2).keepAlive(LIMIT)) {
            Thread.sleep(LIMIT.toMillis() * 2);
            r0.set("k", new byte[] {7});
            assertEquals(7, r1.get("k")[0]);
            r0.checkHealthy();
            r1.checkHealthy();
        }
    }

    @Test
    void aHostThatSendsNothingFailsTheRankNamingTheHost() throws Exception {
        // A host that answers the hello and then falls silent (its machine is gone, its link is down, rank 0 is
        // stopped).
        try (ServerSocket mute = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread.ofPlatform().daemon().start(() -> answerHelloThenSayNothing(mute));
            try (TcpStore rank = TcpStore.connect("127.0.0.1", mute.getLocalPort(), 1, 2, null, null, LONG_WAIT, null)
                    .keepAlive(LIMIT)) {
                long start = System.nanoTime();
                CommAbortedException e =
                        assertThrows(CommAbortedException.class, () -> rank.get("never-set", LONG_WAIT));
                double seconds = (System.nanoTime() - start) / 1e9;
                assertEquals(-1, e.failedRank(), e.getMessage());
                assertTrue(
                        e.getMessage()
                                .contains(
                                        "sent nothing for 3 s: its host or network link is down, or rank 0 is stopped"),
                        e.getMessage());
                assertTrue(seconds < LIMIT.toSeconds() + 3, "took " + seconds + " s");
            }
        }
    }

    private static void answerHelloThenSayNothing(ServerSocket listener) {
        try (Socket s = listener.accept()) {
            DataInputStream in = new DataInputStream(s.getInputStream());
            StoreWire.readFrame(in, StoreWire.MAX_HELLO_FRAME);
            StoreWire.writeFrame(s.getOutputStream(), new StoreWire.Writer(StoreWire.OK, 1).build());
            while (true) StoreWire.readFrame(in, StoreWire.MAX_FRAME); // reads the pings, answers none
        } catch (IOException e) {
            // the rank hung up
        }
    }

    private static StoreServer server(int size) {
        return StoreServer.start(InetAddress.getLoopbackAddress(), 0, size, null, null, Duration.ofSeconds(2));
    }

    private static TcpStore connect(StoreServer host, int rank, int size) {
        return TcpStore.connect("127.0.0.1", host.port(), rank, size, null, null, LONG_WAIT, null);
    }
}
