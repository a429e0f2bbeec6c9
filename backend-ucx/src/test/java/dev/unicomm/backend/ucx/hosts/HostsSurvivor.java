package dev.unicomm.backend.ucx.hosts;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.CommException;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Unicomm;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Two ranks on two hosts for the fault tests: after a barrier both print {@code READY}; rank 1 then
 * only sleeps (its progress thread serves) until the test breaks it; rank 0 gets from it and fetch-adds
 * on it until that fails, prints {@code FAILED <exception> failedRank=<r> at=<epoch ms> ...}, closes and
 * prints {@code CLOSED after <ms>}. Everything is bounded (120 s).
 */
public final class HostsSurvivor {
    private HostsSurvivor() {}

    public static void main(String[] args) throws InterruptedException {
        Communicator comm = Unicomm.connect();
        SymmetricBuffer buf = comm.heap().allocate(64);
        comm.barrier();
        System.out.println("READY rank=" + comm.rank());
        if (comm.rank() == 1) {
            Thread.sleep(120_000); // the test kills it long before
            System.exit(2);
        }
        long t0 = System.nanoTime();
        long ops = 0;
        try (Arena a = Arena.ofConfined()) {
            MemorySegment into = a.allocate(64);
            while (System.nanoTime() - t0 < 120_000_000_000L) {
                comm.rma().get(into, buf, 0, 1);
                comm.rma().atomicFetchAdd(buf, 8, 1, 1);
                ops++;
            }
            System.out.println("NOT FAILED: 120 s of RMA to a broken rank went through");
            System.exit(1);
        } catch (CommException e) {
            int failed = e instanceof CommAbortedException ab ? ab.failedRank() : -1;
            System.out.printf(
                    "FAILED %s failedRank=%d at=%d ops=%d: %s%n",
                    e.getClass().getSimpleName(),
                    failed,
                    System.currentTimeMillis(),
                    ops,
                    e.getMessage().replace('\n', ' '));
            if (!(e instanceof CommAbortedException || e instanceof CommTimeoutException)) System.exit(4);
        }
        long c0 = System.nanoTime();
        try {
            comm.close();
        } catch (RuntimeException e) {
            System.out.println("close reported: " + e.toString().replace('\n', ' '));
        }
        System.out.printf("CLOSED after %d ms%n", (System.nanoTime() - c0) / 1_000_000);
    }
}
