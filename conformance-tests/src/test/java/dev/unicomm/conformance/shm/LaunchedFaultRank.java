package dev.unicomm.conformance.shm;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.Unicomm;

/**
 * A rank of {@link LaunchedFaultTest}: prints its pid, meets the others in a barrier, then the
 * victim (argument) SIGKILLs itself while the others loop in barriers. A survivor prints the
 * abort and exits with 3, so the launcher sees that it noticed the fault itself (not killed).
 */
public final class LaunchedFaultRank {
    private LaunchedFaultRank() {}

    public static void main(String[] args) throws Exception {
        int victim = Integer.parseInt(args[0]);
        Communicator c = Unicomm.connect();
        System.out.println("PID " + ProcessHandle.current().pid());
        c.barrier();
        if (c.rank() == victim) {
            Thread.sleep(300);
            new ProcessBuilder(
                            "kill", "-9", Long.toString(ProcessHandle.current().pid()))
                    .start()
                    .waitFor();
            Runtime.getRuntime().halt(137);
        }
        long t0 = System.nanoTime();
        try {
            while (System.nanoTime() - t0 < c.timeout().multipliedBy(2).toNanos()) c.barrier();
            System.out.println("NO-ABORT");
            System.exit(1);
        } catch (CommAbortedException e) {
            System.out.println("ABORTED failedRank=" + e.failedRank() + " ms=" + (System.nanoTime() - t0) / 1_000_000);
            try {
                c.close();
            } catch (RuntimeException again) {
                // reported, not hung
            }
            System.exit(3);
        }
    }
}
