package dev.unicomm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code unicomm conformance} run as named modules ({@code java -p ... -m dev.unicomm.cli/...}, nothing on the
 * class path) runs its rules (it once failed every one with "class path entries must not be blank" and called
 * that the backend's NOT_CERTIFIED), and the backend's version is its module's, not {@code dev}.
 */
class ConformanceModulePathTest {

    /** The cli's runtime: every entry of this test's class path but the test-only ones. */
    static String modulePath() {
        Set<String> picked = new LinkedHashSet<>();
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String n = e.replace(File.separatorChar, '/');
            boolean testOnly = n.endsWith("/test-classes")
                    || n.contains("/test-support/")
                    || n.contains("/junit-jupiter-params-")
                    || n.matches(".*/junit-jupiter-[0-9][^/]*\\.jar$"); // the aggregator, which requires params
            if (!testOnly && Files.exists(Path.of(e))) picked.add(e);
        }
        assertTrue(
                picked.stream().anyMatch(e -> e.replace(File.separatorChar, '/').contains("/cli/")),
                "cli's classes on the test class path: " + picked);
        return String.join(File.pathSeparator, picked);
    }

    @Test
    void conformanceRunsItsRulesOnTheModulePath(@TempDir Path dir) throws Exception {
        String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(
                        javaBin,
                        "--enable-native-access=ALL-UNNAMED",
                        "-XX:TieredStopAtLevel=1",
                        "-p",
                        modulePath(),
                        "--add-modules",
                        "ALL-MODULE-PATH",
                        "-m",
                        "dev.unicomm.cli/dev.unicomm.cli.Main",
                        "conformance",
                        "--backend",
                        "shm",
                        "-n",
                        "2",
                        "--suite",
                        "Heap",
                        "--rule",
                        "required_heap_allocate_free")
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("out.txt").toFile());
        pb.environment().keySet().removeIf(k -> k.startsWith("UNICOMM_") || k.equals("CLASSPATH"));
        Process p = pb.start();
        boolean done = p.waitFor(5, TimeUnit.MINUTES);
        if (!done) p.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        String out = Files.readString(dir.resolve("out.txt"), StandardCharsets.UTF_8);
        assertTrue(done, "ran past 5 minutes:\n" + out);
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("PASSED   required_heap_allocate_free"), out);
        assertTrue(out.contains("1 rules: 1 passed, 0 failed"), out);
        assertFalse(out.contains("TOOL_FAILURE") || out.contains("NOT_CERTIFIED"), out);
        assertTrue(
                java.util.regex.Pattern.compile("backend shm \\d+\\.\\d+")
                        .matcher(out)
                        .find(),
                "the module's version, not dev: " + out);
        assertTrue(out.contains("certification: PARTIAL_RUN"), out);
    }
}
