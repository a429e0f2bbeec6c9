package dev.unicomm.backend.shm;

import dev.unicomm.launch.JobLauncher;
import dev.unicomm.launch.JobResult;
import dev.unicomm.launch.JobSpec;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Runs {@link ShmWorker} as N JVMs through the project's {@link JobLauncher} (the engine of
 * {@code unicomm run}) and splits the output by rank.
 */
final class ProcessJob {
    private ProcessJob() {}

    record Result(int exitCode, String output) {}

    static List<Result> run(int n, Path shmDir, String scenario, String timeout) {
        JobSpec spec = JobSpec.of(n, ShmWorker.class.getName(), scenario)
                .withBackend("shm")
                .withJvmOptions(List.of("-Xmx64m", "-XX:TieredStopAtLevel=1"))
                .withEnv(Map.of("UNICOMM_HEAP_SIZE", "4M", "UNICOMM_SHM_DIR", shmDir.toString()))
                .withCommTimeout(Duration.parse("PT" + timeout.toUpperCase()))
                .withJobTimeout(Duration.ofSeconds(90))
                .withKillGrace(Duration.ofSeconds(20));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        JobResult result;
        try (PrintStream ps = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            result = JobLauncher.run(spec, ps, ps);
        }
        if (result.timedOut()) throw new AssertionError("scenario " + scenario + " hit the job timeout:\n" + out);
        List<StringBuilder> perRank = new ArrayList<>();
        for (int r = 0; r < n; r++) perRank.add(new StringBuilder());
        for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
            if (!line.startsWith("[")) continue;
            int close = line.indexOf("] ");
            try {
                int r = Integer.parseInt(line.substring(1, close));
                perRank.get(r).append(line.substring(close + 2)).append('\n');
            } catch (NumberFormatException | IndexOutOfBoundsException e) {
                // launcher's own messages ("[unicomm run] ...")
            }
        }
        List<Result> results = new ArrayList<>();
        for (int r = 0; r < n; r++) results.add(new Result(result.rankExitCodes().get(r), perRank.get(r).toString()));
        return results;
    }
}
