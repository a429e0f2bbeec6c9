package dev.unicomm.internal.rendezvous;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.CommException;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Hostile and broken input: the host drops the offender and keeps serving the job. */
@Timeout(600)
class StoreHardeningTest {
    private final List<AutoCloseable> cleanup = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = cleanup.size() - 1; i >= 0; i--) cleanup.get(i).close();
    }

    StoreServer server(int size) {
        StoreServer s =
                StoreServer.start(InetAddress.getLoopbackAddress(), 0, size, "tok", null, Duration.ofMillis(500));
        cleanup.add(s);
        return s;
    }

    TcpStore client(StoreServer s, int rank, int size) {
        TcpStore c = TcpStore.connect("127.0.0.1", s.port(), rank, size, "tok", null, Duration.ofSeconds(5), null);
        cleanup.add(c);
        return c;
    }

    @Test
    void randomBytesNeverHurtTheJob() throws Exception {
        StoreServer s = server(3);
        TcpStore a = client(s, 0, 3);
        Random random = new Random(20261129L);
        for (int i = 0; i < 60; i++) {
            try (RawClient raw = new RawClient(s.port())) {
                byte[] junk = new byte[random.nextInt(1, 3000)];
                random.nextBytes(junk);
                if (i % 3 == 1)
                    ByteBuffer.wrap(junk).putInt(0, random.nextInt(5, junk.length + 100)); // plausible length
                if (i % 3 == 2 && junk.length > 9) { // plausible hello header, random fields
                    ByteBuffer.wrap(junk)
                            .putInt(0, junk.length - 4)
                            .put(4, StoreWire.HELLO)
                            .putInt(9, StoreWire.MAGIC);
                }
                try {
                    raw.sendRaw(junk);
                } catch (IOException e) {
                    // the host may hang up while we still write: that is a rejection too
                }
            }
        }
        // A hello with every field random but the framing.
        for (int i = 0; i < 20; i++) {
            try (RawClient raw = new RawClient(s.port())) {
                byte[] body = new byte[random.nextInt(5, 200)];
                random.nextBytes(body);
                body[0] = StoreWire.HELLO;
                raw.send(body);
                assertTrue(raw.closedByServer(), "a garbage hello must be answered by hanging up");
            }
        }
        TcpStore b = client(s, 1, 3);
        TcpStore c = client(s, 2, 3);
        a.set("alive", new byte[] {42});
        assertArrayEquals(new byte[] {42}, c.get("alive"));
        List<Thread> ranks = new ArrayList<>();
        for (TcpStore r : List.of(a, b, c)) ranks.add(Thread.startVirtualThread(() -> r.barrier("after-fuzz")));
        for (Thread t : ranks) t.join();
        assertEquals(3, a.add("unicomm/barrier/after-fuzz/count", 0));
        assertTrue(a.contains("unicomm/barrier/after-fuzz/open"));
        a.checkHealthy();
    }

    @Test
    void oversizedFrameBeforeHelloIsRefusedWithoutReadingIt() throws Exception {
        StoreServer s = server(2);
        try (RawClient raw = new RawClient(s.port())) {
            raw.sendRaw(new byte[] {0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff});
            assertTrue(raw.closedByServer());
        }
        client(s, 0, 2).set("ok", new byte[0]);
    }

    @Test
    void silentConnectionIsDroppedAfterTheHelloLimit() throws Exception {
        StoreServer s = server(2);
        try (RawClient raw = new RawClient(s.port())) {
            assertTrue(raw.closedByServer(), "a connection that never says hello is closed after 500 ms");
        }
    }

    @Test
    void oversizedValueIsRejectedBeforeSending() {
        StoreServer s = server(2);
        TcpStore a = client(s, 0, 2);
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> a.set("big", new byte[StoreWire.MAX_VALUE_BYTES + 1]));
        assertTrue(e.getMessage().contains("at most"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> a.get("k".repeat(StoreWire.MAX_KEY_BYTES + 1)));
        a.set("fine", new byte[1 << 20]);
        assertEquals(1 << 20, a.get("fine").length);
        a.checkHealthy();
    }

    @Test
    void malformedRequestFromARankGetsAnErrorAndTheConnectionLives() throws Exception {
        StoreServer s = server(2);
        try (RawClient raw = new RawClient(s.port())) {
            assertEquals(StoreWire.OK, raw.hello(1, 2, "tok"));
            raw.send(new StoreWire.Writer((byte) 99, 7).i32(1).build());
            StoreWire.Reader err = raw.reply();
            assertEquals(StoreWire.ERROR, err.type);
            assertEquals(7, err.requestId);
            raw.send(new StoreWire.Writer(StoreWire.SET, 8)
                    .i32(Integer.MAX_VALUE)
                    .build()); // key length beyond the frame
            assertEquals(StoreWire.ERROR, raw.reply().type);
            raw.send(new StoreWire.Writer(StoreWire.CONTAINS, 9).text("k").build());
            StoreWire.Reader ok = raw.reply();
            assertEquals(StoreWire.BOOL, ok.type);
            assertEquals(9, ok.requestId);
        }
    }

    @Test
    void oversizedFrameFromARankAbortsTheJobNamingIt() throws Exception {
        StoreServer s = server(2);
        TcpStore a = client(s, 0, 2);
        try (RawClient raw = new RawClient(s.port())) {
            assertEquals(StoreWire.OK, raw.hello(1, 2, "tok"));
            raw.sendRaw(ByteBuffer.allocate(4).putInt(StoreWire.MAX_FRAME + 1).array());
            CommAbortedException e = assertThrows(CommAbortedException.class, () -> a.get("never"));
            assertEquals(1, e.failedRank());
            assertTrue(e.getMessage().contains("malformed"), e.getMessage());
        }
    }

    @Test
    void wrongProtocolVersionIsRejectedClearly() throws Exception {
        StoreServer s = server(2);
        try (RawClient raw = new RawClient(s.port())) {
            raw.send(new StoreWire.Writer(StoreWire.HELLO, 1)
                    .i32(StoreWire.MAGIC)
                    .i16(StoreWire.VERSION + 1)
                    .i32(0)
                    .i32(2)
                    .optionalBytes("tok".getBytes())
                    .build());
            StoreWire.Reader reply = raw.reply();
            assertEquals(StoreWire.ERROR, reply.type);
            assertTrue(reply.text(StoreWire.MAX_TEXT_BYTES, "e").contains("version"));
        }
        assertThrows(
                CommException.class,
                () -> TcpStore.connect("127.0.0.1", s.port(), 0, 2, "nope", null, Duration.ofSeconds(2), null));
    }
}
