package dev.unicomm.backend.shm;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/** Helpers of tests that need root (mounting a tmpfs, PID namespaces): they skip with the reason otherwise. */
final class RootOnly {
    private RootOnly() {}

    /** Runs a command; its exit code, or -1 if it could not run or took longer than 30 s. */
    static int run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return -1;
            }
            return p.exitValue();
        } catch (Exception e) {
            return -1;
        }
    }

    static boolean root() {
        try {
            return Files.readString(Path.of("/proc/self/status"))
                    .lines()
                    .anyMatch(l -> l.startsWith("Uid:") && l.split("\\s+")[1].equals("0"));
        } catch (Exception e) {
            return false;
        }
    }

    /** Mounts a tmpfs of {@code size} (e.g. "64m") on {@code dir}, or skips the test saying why. */
    static void mountTmpfs(Path dir, String size) {
        Assumptions.assumeTrue(
                root(), "needs root to mount a " + size + " tmpfs (mount -t tmpfs); skipped as a normal user");
        Assumptions.assumeTrue(
                run(List.of("mount", "-t", "tmpfs", "-o", "size=" + size + ",mode=0700", "tmpfs", dir.toString())) == 0,
                "mount -t tmpfs failed here (no CAP_SYS_ADMIN in this container?); skipped");
    }

    static void unmount(Path dir) {
        run(List.of("umount", dir.toString()));
    }

    /** Skips unless this user can run commands in a new PID namespace (unshare --pid --fork --mount-proc). */
    static void requirePidNamespaces() {
        Assumptions.assumeTrue(
                root(), "needs root for unshare --pid (a second PID namespace); skipped as a normal user");
        Assumptions.assumeTrue(
                run(List.of("unshare", "--pid", "--fork", "--mount-proc", "true")) == 0,
                "unshare --pid --fork --mount-proc is not available here; skipped");
    }
}
