package dev.unicomm.backend.ucx.hosts;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Unicomm;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Two ranks on two hosts: rank 1 dies (halts) after a barrier while rank 0 keeps getting from it and
 * fetch-adding on it (argument {@code rma}, the default), or after 50 barriers while rank 0 goes on to the
 * 51st ({@code barrier}: rank 0 waits for a UCX message that never comes). Rank 0 must get
 * {@code CommAbortedException} naming rank 1 within the timeout, then close without hanging; it prints
 * {@code ABORTED ...} and {@code CLOSED ...} and exits 0.
 */
public final class HostsFault {
    private HostsFault() {}

    public static void main(String[] args) {
        Communicator comm = Unicomm.connect();
        SymmetricBuffer buf = comm.heap().allocate(64);
        boolean barriers = args.length > 0 && args[0].equals("barrier");
        comm.barrier();
        if (barriers) for (int i = 0; i < 50; i++) comm.barrier();
        if (comm.rank() == 1) Runtime.getRuntime().halt(3); // dies without closing anything
        long t0 = System.nanoTime();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment into = a.allocate(64);
            for (long i = 0; System.nanoTime() - t0 < 120_000_000_000L; i++) {
                if (barriers) {
                    comm.barrier();
                    continue;
                }
                comm.rma().get(into, buf, 0, 1);
                comm.rma().atomicFetchAdd(buf, 8, 1, 1);
            }
            System.out.println(
                    "NOT ABORTED: 120 s of " + (barriers ? "barriers with" : "RMA to") + " a dead rank went through");
            System.exit(1);
        } catch (CommAbortedException e) {
            System.out.printf(
                    "ABORTED failedRank=%d after %d ms: %s%n",
                    e.failedRank(), (System.nanoTime() - t0) / 1_000_000, e.getMessage());
        }
        long c0 = System.nanoTime();
        try {
            comm.close();
        } catch (RuntimeException e) {
            System.out.println("close reported: " + e);
        }
        System.out.printf("CLOSED after %d ms%n", (System.nanoTime() - c0) / 1_000_000);
    }
}
