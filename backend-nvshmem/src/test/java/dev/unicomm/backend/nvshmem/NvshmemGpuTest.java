package dev.unicomm.backend.nvshmem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.unicomm.backend.nvshmem.gpu.GpuCheck;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs {@link GpuCheck} as 2 real processes (one PE each) on this machine's GPU. Skipped, with the
 * backend's own reason, where no GPU/NVSHMEM is available (CI).
 */
class NvshmemGpuTest {

    @Test
    void twoPesPassEveryCheck(@TempDir Path store) throws Exception {
        var a = new NvshmemBackendProvider().availability();
        if (!a.available()) dev.unicomm.backend.nvshmem.kit.NvshmemKit.skipNotice(a.cause());
        assumeTrue(a.available(), () -> "no NVSHMEM GPU here: " + a.cause());
        int n = 2;
        List<Process> procs = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            var pb = new ProcessBuilder(
                    Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "--enable-native-access=ALL-UNNAMED",
                    "-cp",
                    System.getProperty("java.class.path"),
                    GpuCheck.class.getName());
            pb.environment().put("UNICOMM_RANK", Integer.toString(r));
            pb.environment().put("UNICOMM_WORLD_SIZE", Integer.toString(n));
            pb.environment().put("UNICOMM_FILE_STORE", store.toString());
            pb.environment().put("UNICOMM_TIMEOUT_S", "30");
            pb.redirectErrorStream(true)
                    .redirectOutput(store.resolve("rank" + r + ".log").toFile());
            procs.add(pb.start());
        }
        for (int r = 0; r < n; r++) {
            Process p = procs.get(r);
            if (!p.waitFor(180, TimeUnit.SECONDS)) p.destroyForcibly();
            String log = read(store.resolve("rank" + r + ".log"));
            System.out.println(log);
            assertEquals(0, p.exitValue(), "rank " + r + " failed checks:\n" + log);
        }
    }

    private static String read(Path p) throws IOException {
        return Files.exists(p) ? Files.readString(p) : "(no log)";
    }
}
