package dev.unicomm.backend.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.launch.JobSpec;
import dev.unicomm.testsupport.ProcessJob;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #45 item 9: a rank killed (SIGKILL) while the ranks open their heaps leaves nothing in the
 * shm folder once the job is over: the survivors remove the dead rank's file and the job folder. Nor
 * does {@code unicomm run} killed then: its ranks exit, and on the way out remove their names.
 */
class ShmKilledStartTest {
    private static final Pattern HEAP_FILE = Pattern.compile("\\.?unicomm-shm-[0-9a-f]+-r\\d+-p(\\d+)(\\.new)?");

    @TempDir
    Path tmp;

    @Test
    void aRankKilledWhileTheHeapsOpenLeavesNoFile() throws Exception {
        Path shm = Files.createDirectory(tmp.resolve("shm"));
        AtomicLong killed = new AtomicLong();
        // 64 MiB heaps: writing their pages keeps the ranks in the opening step long enough to be caught there.
        JobSpec spec = JobSpec.of(3, ShmWorker.class.getName(), "ring")
                .withBackend("shm")
                .withJvmOptions(List.of("-Xmx64m", "-XX:TieredStopAtLevel=1"))
                .withEnv(Map.of("UNICOMM_HEAP_SIZE", "64M", "UNICOMM_SHM_DIR", shm.toString()))
                .withCommTimeout(Duration.ofSeconds(20))
                .withJobTimeout(Duration.ofSeconds(60))
                .withKillGrace(Duration.ofSeconds(10));
        Thread killer = Thread.ofPlatform().daemon().start(() -> killFirstOpener(shm, killed));
        ProcessJob.Finished job = ProcessJob.runMerged(spec);
        killer.join(TimeUnit.SECONDS.toMillis(5));
        assertNotEquals(0L, killed.get(), "no rank was caught opening its heap:\n" + job.log());
        assertNotEquals(0, job.exitCode(), "a job with a killed rank cannot succeed");
        List<Path> left = List.of();
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10); System.nanoTime() < end; Thread.sleep(50)) {
            left = entries(shm);
            if (left.isEmpty()) break;
        }
        assertEquals(
                List.of(),
                left,
                "nothing of the job may outlive it (rank pid " + killed.get() + " was killed):\n" + job.log());
    }

    @Test
    void aLauncherKilledWhileTheHeapsOpenLeavesNoFile() throws Exception {
        Path shm = Files.createDirectory(tmp.resolve("shm"));
        Process launcher = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-cp",
                        System.getProperty("java.class.path"),
                        "-Xmx64m",
                        ShmLauncherMain.class.getName(),
                        shm.toString())
                .redirectErrorStream(true)
                .redirectOutput(tmp.resolve("launcher.log").toFile())
                .start();
        try {
            boolean caught = false;
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                    !caught && System.nanoTime() < end;
                    Thread.sleep(1))
                caught = entries(shm).stream()
                        .anyMatch(p ->
                                HEAP_FILE.matcher(p.getFileName().toString()).matches());
            assertTrue(caught, "no rank was seen opening its heap:\n" + Files.readString(tmp.resolve("launcher.log")));
            launcher.destroyForcibly(); // SIGKILL: the ranks see their launcher pipe close
            assertTrue(launcher.waitFor(10, TimeUnit.SECONDS));
            List<Path> left = entries(shm);
            for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
                    !left.isEmpty() && System.nanoTime() < end;
                    left = entries(shm)) Thread.sleep(50);
            assertEquals(
                    List.of(),
                    left,
                    "nothing of the job may outlive its launcher:\n" + Files.readString(tmp.resolve("launcher.log")));
        } finally {
            launcher.descendants().forEach(ProcessHandle::destroyForcibly); // ranks that failed to leave on their own
            launcher.destroyForcibly();
        }
    }

    /** Polls (30 s at most) for the first heap file (final or new) and SIGKILLs the rank whose pid it names. */
    private static void killFirstOpener(Path shm, AtomicLong killed) {
        for (long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(30); System.nanoTime() < end; ) {
            for (Path p : entries(shm)) {
                Matcher m = HEAP_FILE.matcher(p.getFileName().toString());
                if (!m.matches()) continue;
                long pid = Long.parseLong(m.group(1));
                ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                killed.set(pid);
                return;
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private static List<Path> entries(Path shm) {
        try (Stream<Path> all = Files.walk(shm)) {
            return all.filter(p -> !p.equals(shm)).toList();
        } catch (IOException | UncheckedIOException e) {
            return List.of(shm.resolve("(unreadable: " + e + ")")); // an entry vanished under the walk: look again
        }
    }
}
