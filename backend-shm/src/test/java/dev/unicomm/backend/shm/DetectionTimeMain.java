package dev.unicomm.backend.shm;

import dev.unicomm.launch.JobSpec;
import dev.unicomm.testsupport.ProcessJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Measures how long a survivor takes to notice a dead peer (docs/backends/shm.md quotes it):
 * {@code java -cp <test class path> dev.unicomm.backend.shm.DetectionTimeMain RUNS}. Prints one line
 * per run: milliseconds from just before rank 1 gets SIGKILL (clock read by a bash child that then kills it) to rank 0's
 * CommAbortedException in a barrier loop, and the 1-minute load average.
 */
public final class DetectionTimeMain {
    private DetectionTimeMain() {}

    public static void main(String[] args) throws Exception {
        int runs = Integer.parseInt(args[0]);
        for (int i = 0; i < runs; i++) {
            Path shm = Files.createTempDirectory(Path.of("/dev/shm"), "unicomm-detect-");
            JobSpec spec = JobSpec.of(2, ShmWorker.class.getName(), "detect")
                    .withBackend("shm")
                    .withJvmOptions(List.of("-Xmx64m", "-XX:TieredStopAtLevel=1"))
                    .withEnv(Map.of("UNICOMM_HEAP_SIZE", "4M", "UNICOMM_SHM_DIR", shm.toString()))
                    .withCommTimeout(Duration.ofSeconds(30))
                    .withJobTimeout(Duration.ofSeconds(60))
                    .withKillGrace(Duration.ofSeconds(5));
            ProcessJob.Finished job = ProcessJob.runMerged(spec);
            long kill = value(job.rankOutput(1), "RESULT KILL "), noticed = value(job.rankOutput(0), "RESULT NOTICED ");
            String load = Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
            System.out.printf("run %d: noticed after %.1f ms (load %s)%n", i, (noticed - kill) / 1000.0, load);
            Files.deleteIfExists(shm);
        }
    }

    private static long value(String output, String prefix) {
        return output.lines()
                .filter(l -> l.startsWith(prefix))
                .map(l -> Long.parseLong(l.substring(prefix.length()).strip()))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("no '" + prefix + "' line in:\n" + output));
    }
}
