package dev.unicomm.backend.nvshmem.gpu;

import dev.unicomm.conformance.KitReport;
import dev.unicomm.conformance.KitRunner;
import dev.unicomm.conformance.KitSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Runs every kit suite against nvshmem outside Maven (on the GPU machine):
 * {@code KitMain RANKS OUT_DIR [SUITE,...]} (suites by simple name, default all) writes {@code kit-nvshmem-<RANKS>pe.txt} (the report table),
 * {@code .json} and JUnit XML under OUT_DIR; exit status 0 when no rule failed.
 */
public final class KitMain {
    public static void main(String[] args) throws IOException {
        int ranks = Integer.parseInt(args[0]);
        Path out = Path.of(args[1]);
        Files.createDirectories(out);
        Map<String, String> settings = Map.of(KitSettings.BACKEND, "nvshmem", KitSettings.RANKS, Integer.toString(ranks),
                KitSettings.LOGS, out.resolve("kit-logs-" + ranks + "pe").toString());
        java.util.List<Class<?>> suites = KitRunner.ALL_SUITES;
        if (args.length > 2) {
            var wanted = java.util.Set.of(args[2].split(","));
            suites = suites.stream().filter(c -> wanted.contains(c.getSimpleName())).toList();
        }
        KitReport report = KitRunner.run(suites, settings, out.resolve("junit-" + ranks + "pe"), System.out);
        String table = report.table();
        Files.writeString(out.resolve("kit-nvshmem-" + ranks + "pe.txt"), table);
        Files.writeString(out.resolve("kit-nvshmem-" + ranks + "pe.json"), report.json());
        System.out.println(table);
        System.exit(report.passed() ? 0 : 1);
    }
}
