package dev.unicomm.benchmarks.bench;

import dev.unicomm.launch.JobSpec;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * {@code unicomm bench rma} for backends whose heap is device memory: the Java job
 * ({@link DeviceRmaBenchWorker}, 2 ranks) and, in the same run, the native reference program (2
 * ranks of {@code benchmarks/reference/rma_ref}: the same stream-ordered puts/gets issued from C), then
 * one row per (operation, size) with the reference's time and the ratio. Both jobs get the same
 * NVSHMEM heap size and the same MPS share per process.
 */
final class DeviceRmaBench {
    private DeviceRmaBench() {}

    static List<BenchRow> run(String backend, List<Long> sizes, Path reference) {
        long max = sizes.stream().mapToLong(Long::longValue).max().orElseThrow();
        long nvshmemHeap = 2 * max + (256L << 20);
        Map<String, String> env = Map.of(
                "NVSHMEM_SYMMETRIC_SIZE",
                Long.toString(nvshmemHeap),
                "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE",
                "50",
                "NVSHMEM_DISABLE_NVLS",
                "1",
                "UNICOMM_HEAP_SIZE",
                Long.toString(max + (64L << 20)));
        String sizeList = sizes.stream().map(String::valueOf).collect(Collectors.joining(","));
        Map<String, Double> ref = reference == null ? Map.of() : reference(reference, sizeList, env);
        JobSpec spec = JobSpec.of(2, DeviceRmaBenchWorker.class.getName(), sizeList)
                .withBackend(backend)
                .withEnv(env)
                .withJvmOptions(List.of("--enable-native-access=ALL-UNNAMED"))
                .withCommTimeout(Duration.ofMinutes(5))
                .withJobTimeout(Duration.ofMinutes(15));
        List<BenchRow> rows = new ArrayList<>();
        // Rank 0 prints put and get per size, plus put-issue and put-blocking up to 64 KiB.
        int expected = sizes.stream().mapToInt(b -> b <= 64 << 10 ? 4 : 2).sum();
        for (String line : BenchJob.rows(spec, "bench rma (device, 2 ranks)", expected, "dev,", () -> {})) {
            String[] f = line.split(",");
            String key = f[1] + "," + f[2];
            Double r = ref.get(key);
            rows.add(new BenchRow(
                    f[1] + "@stream",
                    2,
                    Long.parseLong(f[2]),
                    Long.parseLong(f[3]),
                    Double.parseDouble(f[4]) * 1e3,
                    r == null ? "" : "C nvshmemx_" + (f[1].startsWith("get") ? "getmem" : "putmem") + "_on_stream",
                    r == null ? 0 : r * 1e3));
        }
        return rows;
    }

    /** Runs the C reference (2 processes, unique id through a temporary directory); op,bytes -> us per op. */
    static Map<String, Double> reference(Path exe, String sizeList, Map<String, String> env) {
        if (!Files.isExecutable(exe))
            throw new IllegalArgumentException(
                    "--reference " + exe + " is not an executable (build benchmarks/reference/rma_ref.cu with nvcc)");
        Map<String, Double> out = new HashMap<>();
        try {
            Path dir = Files.createTempDirectory("unicomm-rma-ref");
            List<Process> ps = new ArrayList<>();
            List<Path> logs = new ArrayList<>();
            for (int r = 0; r < 2; r++) {
                Path log = dir.resolve("rank" + r + ".log");
                ProcessBuilder pb = new ProcessBuilder(exe.toString(), sizeList)
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile());
                pb.environment().putAll(env);
                pb.environment().put("UNICOMM_RANK", Integer.toString(r));
                pb.environment().put("UNICOMM_WORLD_SIZE", "2");
                pb.environment().put("UNICOMM_FILE_STORE", dir.toString());
                ps.add(pb.start());
                logs.add(log);
            }
            for (int r = 0; r < 2; r++) {
                Process p = ps.get(r);
                if (!p.waitFor(10, TimeUnit.MINUTES)) {
                    p.destroyForcibly();
                    throw new IllegalStateException("reference rank " + r + " did not finish in 10 minutes");
                }
                if (p.exitValue() != 0)
                    throw new IllegalStateException("reference rank " + r + " exited with " + p.exitValue() + ":\n"
                            + Files.readString(logs.get(r)));
            }
            for (String line : Files.readAllLines(logs.get(0))) {
                String[] f = line.split(",");
                if (f.length == 6 && f[0].equals("ref")) out.put(refOp(f[1]) + "," + f[2], Double.parseDouble(f[4]));
            }
            return out;
        } catch (IOException e) {
            throw new IllegalStateException("running the reference " + exe + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running the reference");
        }
    }

    /** The C program's op names -> the worker's. */
    private static String refOp(String op) {
        return switch (op) {
            case "put_bw" -> "put";
            case "get_bw" -> "get";
            case "put_issue" -> "put-issue";
            case "put_blocking" -> "put-blocking";
            default -> op;
        };
    }
}
