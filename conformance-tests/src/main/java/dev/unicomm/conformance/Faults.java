package dev.unicomm.conformance;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Ways for a fault rule to make a rank disappear the way real ranks do. */
public final class Faults {
    private Faults() {}

    /**
     * SIGKILLs this worker JVM after {@code delay}, from a background thread, so the caller can be
     * inside a blocking call when it happens. Falls back to {@link Runtime#halt} where {@code kill}
     * cannot be run (same effect on peers: the process vanishes without any clean-up).
     */
    public static void killSelfAfter(Duration delay) {
        Thread.ofPlatform().daemon().name("kit-fault-killer").start(() -> {
            try {
                Thread.sleep(delay);
                Process p = new ProcessBuilder(
                                "kill",
                                "-9",
                                Long.toString(ProcessHandle.current().pid()))
                        .start();
                p.waitFor(5, TimeUnit.SECONDS);
            } catch (Exception e) {
                // no kill(1) here: vanish anyway
            }
            Runtime.getRuntime().halt(137);
        });
    }

    /** Exits this worker JVM with {@code code} after {@code delay}, running shutdown hooks (an orderly crash). */
    public static void exitAfter(Duration delay, int code) {
        Thread.ofPlatform().daemon().name("kit-fault-exit").start(() -> {
            try {
                Thread.sleep(delay);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            System.exit(code);
        });
    }
}
