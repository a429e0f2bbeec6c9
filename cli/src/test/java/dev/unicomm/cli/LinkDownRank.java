package dev.unicomm.cli;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.Memory;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Unicomm;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A rank that prints {@code UP r} once connected, then puts to its right neighbour and meets the others in a
 * barrier every 20 ms for at most 120 s; on a failure it prints {@code FAILED class: message} and exits 3.
 * {@link RunLinkDownTest} takes a host's link down while the ranks are in that loop.
 */
public final class LinkDownRank {
    public static void main(String[] args) {
        try (Communicator c = Unicomm.connect();
                SymmetricBuffer buf = c.heap().allocate(64)) {
            MemorySegment local = Arena.ofAuto().allocate(64);
            System.out.println("UP " + c.rank());
            long end = System.nanoTime() + 120_000_000_000L;
            while (System.nanoTime() < end) {
                c.rma().put(buf, 0, Memory.of(local), 0, 64, (c.rank() + 1) % c.size());
                c.rma().quiet();
                c.barrier();
                Thread.sleep(20);
            }
            System.out.println("DONE " + c.rank());
        } catch (RuntimeException e) {
            System.out.println("FAILED " + e.getClass().getSimpleName() + ": " + e.getMessage());
            System.exit(3);
        } catch (InterruptedException e) {
            System.exit(4);
        }
    }
}
