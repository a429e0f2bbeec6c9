package dev.unicomm.backend.shm;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts N JVMs running {@link ShmWorker} with the rendezvous environment set (UNICOMM_RANK,
 * UNICOMM_WORLD_SIZE, UNICOMM_STORE), the way a launcher does, and collects each one's exit code
 * and output.
 */
final class ProcessJob {
    private ProcessJob() {}

    record Result(int exitCode, String output) {}

    static List<Result> run(int n, Path shmDir, String scenario, String timeout) throws IOException, InterruptedException {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<Process> procs = new ArrayList<>();
        List<Path> logs = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            Path log = Files.createTempFile(shmDir.getParent(), "rank" + r + "-", ".log");
            ProcessBuilder pb = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-Xmx64m",
                    "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), ShmWorker.class.getName(), scenario);
            pb.environment().put("UNICOMM_RANK", Integer.toString(r));
            pb.environment().put("UNICOMM_WORLD_SIZE", Integer.toString(n));
            pb.environment().put("UNICOMM_STORE", "127.0.0.1:" + port);
            pb.environment().put("UNICOMM_BACKEND", "shm");
            pb.environment().put("UNICOMM_TIMEOUT", timeout);
            pb.environment().put("UNICOMM_HEAP_SIZE", "4M");
            pb.environment().put("UNICOMM_SHM_DIR", shmDir.toString());
            pb.redirectErrorStream(true).redirectOutput(log.toFile());
            procs.add(pb.start());
            logs.add(log);
        }
        List<Result> results = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            Process p = procs.get(r);
            if (!p.waitFor(90, TimeUnit.SECONDS)) {
                procs.forEach(Process::destroyForcibly);
                throw new AssertionError("rank " + r + " of scenario " + scenario + " did not finish in 90 s:\n" + Files.readString(logs.get(r)));
            }
            results.add(new Result(p.exitValue(), Files.readString(logs.get(r))));
        }
        return results;
    }
}
