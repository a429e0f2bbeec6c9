package dev.unicomm.launch;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 18, finding 5: {@code kill -9} of the launcher during a TLS job used to leave the ranks
 * running as orphans and the job's private key ({@code job.p12}) in the temporary folder.
 */
@Timeout(600)
class LauncherDeathTest {
    /** Generous: two JVMs wind down on a busy two-core machine. */
    static final long EXIT_BOUND_MS = 30_000;

    @TempDir
    Path tmp;

    private Process launcher;
    private List<ProcessHandle> ranks = List.of();

    @AfterEach
    void killLeftovers() {
        ranks.forEach(ProcessHandle::destroyForcibly); // orphans are no longer the launcher's descendants
        if (launcher != null) {
            launcher.descendants().forEach(ProcessHandle::destroyForcibly);
            launcher.destroyForcibly();
        }
    }

    @Test
    void ranksExitAndNoKeyIsLeftWhenTheLauncherIsKilled() throws Exception {
        ProcessBuilder pb = new ProcessBuilder(
                JobSpec.currentJava(),
                "-Djava.io.tmpdir=" + tmp,
                "-cp",
                String.join(File.pathSeparator, JobSpec.currentClasspath()),
                LauncherProcess.class.getName());
        pb.redirectErrorStream(true);
        launcher = pb.start();
        LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        Thread.ofPlatform().daemon().start(() -> {
            try (BufferedReader in =
                    new BufferedReader(new InputStreamReader(launcher.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = in.readLine()) != null; ) lines.add(l);
            } catch (IOException ignored) {
                // the launcher is gone
            }
        });
        StringBuilder seen = new StringBuilder();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        int connected = 0;
        while (connected < 2 && System.nanoTime() < until) {
            String l = lines.poll(1, TimeUnit.SECONDS);
            if (l == null) continue;
            seen.append(l).append('\n');
            if (l.matches("\\[[01]\\] rank [01] connected tls=true")) connected++;
        }
        assertEquals(2, connected, "both TLS ranks should have joined the store:\n" + seen);
        ranks = launcher.descendants()
                .filter(h -> h.info().commandLine().orElse("").contains("LaunchedRank"))
                .toList();
        assertEquals(
                2,
                ranks.size(),
                "the launcher's ranks: " + launcher.descendants().toList());

        launcher.destroyForcibly(); // SIGKILL: no shutdown hook, no finally
        assertTrue(launcher.waitFor(30, TimeUnit.SECONDS));
        long start = System.nanoTime();
        for (ProcessHandle rank : ranks) {
            long left = TimeUnit.MILLISECONDS.toNanos(EXIT_BOUND_MS) - (System.nanoTime() - start);
            try {
                rank.onExit().get(Math.max(1, left), TimeUnit.NANOSECONDS);
            } catch (java.util.concurrent.TimeoutException e) {
                // reported below
            }
        }
        long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertEquals(
                List.of(),
                ranks.stream()
                        .filter(ProcessHandle::isAlive)
                        .map(ProcessHandle::pid)
                        .toList(),
                "ranks still running " + ms + " ms after their launcher was killed");
        try (Stream<Path> left = Files.walk(tmp)) {
            assertEquals(
                    List.of(),
                    left.filter(p -> !p.equals(tmp))
                            .map(tmp::relativize)
                            .map(Path::toString)
                            .filter(p -> p.contains("unicomm-tls") || p.endsWith(".p12"))
                            .toList(),
                    "key material left in the temporary folder");
        }
        System.out.println("[reliability] launcher killed: both ranks exited within " + ms + " ms, no key file left");
    }

    /**
     * Issue 45: a launcher killed while it made the key pair left {@code unicomm-tls-*}/job.p12 behind. Now the
     * keystore is made in memory: during a whole TLS job nothing at all is created in the launcher's temporary folder.
     */
    @Test
    void aTlsJobNeverPutsItsKeyOnDisk() throws Exception {
        try (WatchService watch = tmp.getFileSystem().newWatchService()) {
            WatchKey key = tmp.register(watch, StandardWatchEventKinds.ENTRY_CREATE);
            ProcessBuilder pb = new ProcessBuilder(
                    JobSpec.currentJava(),
                    "-Djava.io.tmpdir=" + tmp,
                    "-cp",
                    String.join(File.pathSeparator, JobSpec.currentClasspath()),
                    LauncherProcess.class.getName(),
                    "hello");
            pb.redirectErrorStream(true);
            launcher = pb.start();
            byte[] output = launcher.getInputStream().readAllBytes();
            assertTrue(launcher.waitFor(120, TimeUnit.SECONDS));
            String printed = new String(output, StandardCharsets.UTF_8);
            assertEquals(0, launcher.exitValue(), printed);
            assertTrue(printed.contains("[1] rank 1 of 2 sees r0r1 tls=true"), printed);
            List<String> created = key.pollEvents().stream()
                    .map(e -> String.valueOf(e.context()))
                    .toList();
            assertEquals(List.of(), created, "files created in the launcher's temporary folder during a TLS job");
        }
    }
}
