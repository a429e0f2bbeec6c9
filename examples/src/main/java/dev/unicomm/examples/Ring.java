package dev.unicomm.examples;

import dev.unicomm.api.Cmp;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.Memory;
import dev.unicomm.api.SignalOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Unicomm;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * An SPMD ring: every PE runs this same program.
 * <ol>
 *   <li>A token travels once around the ring: PE 0 sends 0 to PE 1; every other PE waits for it
 *       (signal wait), adds its rank and passes it right with one put-with-signal; PE 0 receives
 *       the sum {@code 1 + 2 + ... + (n-1)}.</li>
 *   <li>Every PE puts a greeting into its right neighbour's symmetric inbox; after a barrier each
 *       prints what its left neighbour wrote.</li>
 * </ol>
 * Run it with {@code bin/unicomm run -n 4 -- dev.unicomm.examples.Ring}.
 */
public final class Ring {
    private Ring() {}

    static final int INBOX_BYTES = 64;

    public static void main(String[] args) {
        try (Communicator comm = Unicomm.connect()) {
            System.out.println(run(comm));
        }
    }

    /** Runs the ring on {@code comm} (collective) and returns this PE's line of output. */
    static String run(Communicator comm) {
        int me = comm.rank(), n = comm.size();
        int right = (me + 1) % n, left = (me + n - 1) % n;
        try (SymmetricBuffer token = comm.heap().allocate(8);
                SymmetricBuffer arrived = comm.heap().allocate(8);
                SymmetricBuffer inbox = comm.heap().allocate(INBOX_BYTES)) {
            long total = passToken(comm, token, arrived, right);

            byte[] greeting = ("hello from PE " + me).getBytes(StandardCharsets.UTF_8);
            comm.rma().put(inbox, 0, MemorySegment.ofArray(greeting), right);
            comm.barrier(); // completes every PE's put and makes it visible
            String got = zeroTerminated(inbox.segment());
            comm.barrier(); // nobody frees the inbox while a neighbour may still read it

            return "PE " + me + " of " + n + ": inbox from PE " + left + " says '" + got + "'"
                    + (me == 0 ? "; token came back as " + total + " (expected " + (long) n * (n - 1) / 2 + ")" : "");
        }
    }

    /** The token's trip around the ring; PE 0 returns the final value, others the value they sent. */
    private static long passToken(Communicator comm, SymmetricBuffer token, SymmetricBuffer arrived, int right) {
        int me = comm.rank(), n = comm.size();
        if (n == 1) return 0;
        long value = 0;
        if (me != 0) {
            comm.rma().signalWaitUntil(arrived, 0, Cmp.EQ, 1);
            value = token.segment().get(ValueLayout.JAVA_LONG, 0) + me;
        }
        MemorySegment word = MemorySegment.ofArray(new long[] {value});
        comm.rma().putSignal(token, 0, Memory.of(word), 0, 8, arrived, 0, 1, SignalOp.SET, right);
        if (me == 0) {
            comm.rma().signalWaitUntil(arrived, 0, Cmp.EQ, 1);
            value = token.segment().get(ValueLayout.JAVA_LONG, 0);
        }
        return value;
    }

    private static String zeroTerminated(MemorySegment bytes) {
        int len = 0;
        while (len < bytes.byteSize() && bytes.get(ValueLayout.JAVA_BYTE, len) != 0) len++;
        return new String(bytes.asSlice(0, len).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }
}
