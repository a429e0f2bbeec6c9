package dev.unicomm.internal.rendezvous;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommAbortedException;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A gap the other store tests leave: random messages from an authenticated rank (well framed,
 * random content) never take the host down: each is answered with an error, or aborts the job
 * naming exactly that rank; the host keeps answering. (That rejections are logged without the
 * secret is checked end to end in the cli's RunSecurityTest.)
 */
@Timeout(600)
class StoreSecurityTest {
    static final int ROUNDS = 10;

    @Test
    void randomRequestsFromAnAuthenticatedRankNeverKillTheHost() throws Exception {
        Random random = new Random(12_2026L);
        int errors = 0, aborts = 0;
        for (int round = 0; round < ROUNDS; round++) {
            try (StoreServer s = StoreServer.start(
                            InetAddress.getLoopbackAddress(), 0, 2, "tok", null, Duration.ofSeconds(2));
                    TcpStore good =
                            TcpStore.connect("127.0.0.1", s.port(), 0, 2, "tok", null, Duration.ofSeconds(5), null);
                    RawClient bad = new RawClient(s.port())) {
                assertEquals(StoreWire.OK, bad.hello(1, 2, "tok"));
                boolean aborted = false;
                for (int i = 0; i < 20 && !aborted; i++) {
                    byte[] body = new byte[random.nextInt(5, 300)];
                    random.nextBytes(body);
                    if (random.nextBoolean()) body[0] = (byte) random.nextInt(1, 12); // a plausible request type
                    try {
                        bad.send(body);
                    } catch (IOException e) {
                        aborted = true; // the host hung up on us
                        break;
                    }
                    // The host answers something for every request it can parse, or drops this rank.
                    try {
                        StoreWire.Reader reply = bad.reply();
                        if (reply.type == StoreWire.ABORTED) aborted = true;
                        if (reply.type == StoreWire.ERROR) errors++;
                    } catch (IOException e) {
                        aborted = true;
                    }
                }
                if (round % 2 == 1 && !aborted) {
                    // Random bytes where a frame header belongs: the stream cannot be resynchronised, so the host
                    // drops this rank and aborts the job naming it.
                    byte[] junk = new byte[random.nextInt(4, 64)];
                    random.nextBytes(junk);
                    junk[0] = (byte) (0x40 | random.nextInt(0x40)); // a frame length beyond the limit
                    try {
                        bad.sendRaw(junk);
                        bad.closedByServer();
                    } catch (IOException e) {
                        // hung up while we wrote: the same rejection
                    }
                    long until = System.nanoTime() + 3_000_000_000L;
                    while (System.nanoTime() < until) {
                        try {
                            good.checkHealthy();
                            Thread.sleep(10);
                        } catch (CommAbortedException e) {
                            break;
                        }
                    }
                }
                // The rank that behaved is either fine or told that exactly the fuzzing rank failed.
                try {
                    good.set("still-here", new byte[] {1});
                    assertEquals(1, good.get("still-here")[0]);
                } catch (CommAbortedException e) {
                    assertEquals(1, e.failedRank(), e.getMessage());
                    aborts++;
                }
                // The host still serves: a late stranger gets a clear rejection, not a dead socket.
                try (RawClient late = new RawClient(s.port())) {
                    assertEquals(StoreWire.ERROR, late.hello(1, 2, "tok"));
                }
            }
        }
        System.out.println("[reliability] store fuzz after hello: " + ROUNDS + " rounds, " + errors + " error replies, "
                + aborts + " job aborts naming the fuzzing rank, host alive in every round");
        assertTrue(errors > 0, "random requests should mostly get error replies");
        assertEquals(
                ROUNDS / 2,
                aborts,
                "every round with a broken frame header must abort the job naming the fuzzing rank");
    }
}
