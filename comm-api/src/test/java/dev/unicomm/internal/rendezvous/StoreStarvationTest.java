package dev.unicomm.internal.rendezvous;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18, finding 1: strangers on the host hold connections to the store open (slow loris: a
 * byte every 300 ms, which used to restart the hello deadline, so 64 of them locked ranks out for
 * good). Ranks must still get in, over plain TCP and over TLS.
 */
@Timeout(600)
class StoreStarvationTest {
    /** More than the old cap of 64 pending connections. */
    static final int LORIS = 200;

    @TempDir
    Path dir;

    private final List<AutoCloseable> cleanup = new ArrayList<>();
    private volatile boolean dribbling = true;

    @AfterEach
    void closeAll() throws Exception {
        dribbling = false;
        for (int i = cleanup.size() - 1; i >= 0; i--) cleanup.get(i).close();
    }

    /** Opens {@code n} connections that each send one byte of a plausible hello frame every 300 ms. */
    private List<Socket> slowLoris(int port, int n) throws IOException {
        List<Socket> sockets = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
            sockets.add(s);
            cleanup.add(s);
        }
        Thread.ofPlatform().daemon().start(() -> {
            byte[] frame = {0, 0, 3, (byte) 0xE8, StoreWire.HELLO
            }; // announces a 1000-byte hello, then never finishes it
            for (int i = 0; dribbling; i++) {
                for (Socket s : sockets) {
                    try {
                        OutputStream out = s.getOutputStream();
                        out.write(frame[Math.min(i, frame.length - 1)]);
                        out.flush();
                    } catch (IOException dropped) {
                        // the store hung up on this one: fine
                    }
                }
                try {
                    Thread.sleep(300);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        return sockets;
    }

    private void twoRanksRendezvousDespiteSlowLoris(SSLContext ssl) throws Exception {
        StoreServer server =
                StoreServer.start(InetAddress.getLoopbackAddress(), 0, 2, "tok", ssl, Duration.ofSeconds(3));
        cleanup.add(server);
        slowLoris(server.port(), LORIS);
        Thread.sleep(500); // the store has accepted them all and they have started dribbling
        long start = System.nanoTime();
        List<CompletableFuture<Long>> ranks = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            int rank = r;
            ranks.add(CompletableFuture.supplyAsync(() -> {
                try (TcpStore store = TcpStore.connect(
                        "127.0.0.1", server.port(), rank, 2, "tok", ssl, Duration.ofSeconds(30), null)) {
                    store.barrier("met");
                    return store.add("sum", rank + 1);
                }
            }));
        }
        long max = 0;
        for (CompletableFuture<Long> f : ranks) max = Math.max(max, f.get(60, TimeUnit.SECONDS));
        assertEquals(3, max);
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        System.out.println("[reliability] store starvation" + (ssl == null ? "" : " (tls)")
                + ": 2 ranks rendezvoused in " + ms + " ms with " + LORIS + " slow-loris connections held open");
    }

    @Test
    void twoRanksRendezvousWhileSlowLorisConnectionsHoldOn() throws Exception {
        twoRanksRendezvousDespiteSlowLoris(null);
    }

    @Test
    void twoRanksRendezvousOverTlsWhileSlowLorisConnectionsHoldOn() throws Exception {
        Path ks = dir.resolve("job.p12");
        StoreTls.createSelfSignedKeystore(ks, "job-password-1".toCharArray());
        twoRanksRendezvousDespiteSlowLoris(StoreTls.context(ks, "job-password-1".toCharArray()));
    }

    @Test
    void theHelloDeadlineCountsFromTheAcceptNotFromTheLastByte() throws Exception {
        StoreServer server =
                StoreServer.start(InetAddress.getLoopbackAddress(), 0, 2, "tok", null, Duration.ofSeconds(1));
        cleanup.add(server);
        Socket loris = slowLoris(server.port(), 1).get(0);
        loris.setSoTimeout(15_000);
        long start = System.nanoTime();
        assertEquals(-1, loris.getInputStream().read(), "the store must hang up, not answer");
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(
                ms < 10_000,
                "a connection sending a byte every 300 ms was held for " + ms + " ms; the hello limit is 1 s");
    }

    @Test
    void connectionsBeyondTheLimitPushOutTheOldestNotTheNewest() throws Exception {
        // A long hello limit: only the cap, not the deadline, can make room here.
        StoreServer server =
                StoreServer.start(InetAddress.getLoopbackAddress(), 0, 2, "tok", null, Duration.ofSeconds(60));
        cleanup.add(server);
        List<Socket> silent = new ArrayList<>();
        for (int i = 0; i < StoreServer.MAX_AWAITING_HELLO + 20; i++) {
            Socket s = new Socket(InetAddress.getLoopbackAddress(), server.port());
            silent.add(s);
            cleanup.add(s);
        }
        long start = System.nanoTime();
        try (TcpStore rank =
                TcpStore.connect("127.0.0.1", server.port(), 0, 2, "tok", null, Duration.ofSeconds(30), null)) {
            rank.set("in", new byte[] {1});
        }
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(ms < 20_000, "the rank took " + ms + " ms to get past " + silent.size() + " silent connections");
        silent.get(0).setSoTimeout(15_000);
        assertEquals(-1, silent.get(0).getInputStream().read(), "the oldest silent connection must have been dropped");
    }
}
