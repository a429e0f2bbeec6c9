package dev.unicomm.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.Capability;
import dev.unicomm.api.Cmp;
import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.CommException;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.SymmetricBuffer;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.opentest4j.AssertionFailedError;

/**
 * Faults: a rank that vanishes while the others wait makes every survivor fail within the
 * timeout with {@link CommAbortedException} naming it, never hang. Each rule kills the highest
 * rank; the kit restarts the job before the next rule. Closing the communicator afterwards must
 * not hang either (it may report the abort again).
 */
public abstract class FaultSuite extends KitSuite {

    /** Survivors: {@code waitCall} must end in CommAbortedException naming {@code victim} within the timeout. */
    static void expectAbort(Pe pe, int victim, String what, Runnable waitCall) {
        Communicator c = pe.comm();
        long t0 = System.nanoTime();
        try {
            waitCall.run();
            throw new AssertionFailedError(what + " returned normally although rank " + victim + " died");
        } catch (CommAbortedException e) {
            assertEquals(victim, e.failedRank(), what + ": the exception must name the dead rank: " + e.getMessage());
        } catch (RuntimeException e) {
            throw new AssertionFailedError(
                    what + ": expected CommAbortedException naming rank " + victim + ", got " + e, e);
        }
        Duration took = Duration.ofNanos(System.nanoTime() - t0);
        Duration limit = c.timeout().plusSeconds(5);
        assertTrue(
                took.compareTo(limit) <= 0,
                what + " took " + took.toMillis() + " ms to fail; limit " + limit.toMillis() + " ms");
        // the survivor can still tear down without hanging; close may report the abort again
        long c0 = System.nanoTime();
        try {
            c.close();
        } catch (CommException e) {
            // reported, not hung: fine
        }
        long closeMs = (System.nanoTime() - c0) / 1_000_000;
        assertTrue(closeMs <= limit.toMillis(), "close() after the abort took " + closeMs + " ms");
    }

    /** Verifies §7.2: a dead rank is named by CommAbortedException on every survivor, which can still close / if it fails, look at abort propagation through the store and the blocking waits. */
    @Verifies("7.2")
    @Test
    void required_faults_rank_killed_in_barrier() {
        assumeRanks(2);
        int victim = ranks() - 1;
        spmdKilling(victim, pe -> {
            Communicator c = pe.comm();
            c.barrier(); // everyone is up
            if (c.rank() == c.size() - 1) {
                Faults.killSelfAfter(Duration.ofMillis(300));
                Thread.sleep(60_000);
            } else {
                expectAbort(pe, c.size() - 1, "barrier", c::barrier);
            }
        });
    }

    /** Verifies §7.2: a dead rank is named by CommAbortedException on every survivor, which can still close / if it fails, look at abort propagation through the store and the blocking waits. */
    @Verifies("7.2")
    @Test
    void required_faults_rank_exits_in_barrier() {
        assumeRanks(2);
        int victim = ranks() - 1;
        spmdKilling(victim, pe -> {
            Communicator c = pe.comm();
            c.barrier();
            if (c.rank() == c.size() - 1) {
                Faults.exitAfter(Duration.ofMillis(300), 3);
                Thread.sleep(60_000);
            } else {
                expectAbort(pe, c.size() - 1, "barrier", c::barrier);
            }
        });
    }

    /** Verifies §7.2: a dead rank is named by CommAbortedException on every survivor, which can still close / if it fails, look at abort propagation through the store and the blocking waits. */
    @Verifies("7.2")
    @Test
    void optional_faults_rank_killed_in_signal_wait() {
        assumeRanks(2);
        assumeCapability(Capability.SIGNALS);
        int victim = ranks() - 1;
        spmdKilling(victim, pe -> {
            Communicator c = pe.comm();
            SymmetricBuffer sig = c.heap().allocate(64);
            Mem.write(c, sig, 0, Mem.longs(0));
            c.barrier();
            if (c.rank() == c.size() - 1) {
                Faults.killSelfAfter(Duration.ofMillis(300));
                Thread.sleep(60_000);
            } else {
                expectAbort(pe, c.size() - 1, "signal wait-until", () -> c.rma().signalWaitUntil(sig, 0, Cmp.EQ, 1));
            }
        });
    }

    /** Verifies §7.2: a dead rank is named by CommAbortedException on every survivor, which can still close / if it fails, look at abort propagation through the store and the blocking waits. */
    @Verifies("7.2")
    @Test
    void required_faults_rank_killed_in_team_barrier() {
        assumeRanks(2);
        int victim = ranks() - 1;
        spmdKilling(victim, pe -> {
            Communicator c = pe.comm();
            c.barrier();
            if (c.rank() == c.size() - 1) {
                Faults.killSelfAfter(Duration.ofMillis(300));
                Thread.sleep(60_000);
            } else {
                expectAbort(
                        pe, c.size() - 1, "world team barrier", () -> c.world().barrier());
            }
        });
    }
}
