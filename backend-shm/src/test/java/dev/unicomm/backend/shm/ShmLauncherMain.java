package dev.unicomm.backend.shm;

import dev.unicomm.launch.JobLauncher;
import dev.unicomm.launch.JobSpec;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** {@code unicomm run} of a 3-rank shm ring job with 64 MiB heaps in folder {@code args[0]}, in its own JVM (to be SIGKILLed). */
public final class ShmLauncherMain {
    private ShmLauncherMain() {}

    public static void main(String[] args) {
        JobSpec spec = JobSpec.of(3, ShmWorker.class.getName(), "ring")
                .withBackend("shm")
                .withJvmOptions(List.of("-Xmx64m", "-XX:TieredStopAtLevel=1"))
                .withEnv(Map.of("UNICOMM_HEAP_SIZE", "64M", "UNICOMM_SHM_DIR", args[0]))
                .withCommTimeout(Duration.ofSeconds(20))
                .withJobTimeout(Duration.ofSeconds(60));
        System.exit(JobLauncher.run(spec).exitCode());
    }
}
