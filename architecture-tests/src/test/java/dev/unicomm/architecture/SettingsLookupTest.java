package dev.unicomm.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code unicomm.*} settings are read one way: through {@code BackendSettings} (or {@code CommConfig.property}), which
 * looks up the system property {@code unicomm.KEY}, then the variable {@code UNICOMM_KEY}; each key is listed once by a
 * {@code SettingsProvider}. No main source reads such a key with {@code System.getProperty}/{@code getenv} (or
 * {@code Boolean.getBoolean} and the like) itself, except the files below, each for the reason given.
 */
class SettingsLookupTest {
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    /** Files that may read {@code unicomm.*}/{@code UNICOMM_*} names directly, and why. */
    static final Map<String, String> ALLOWED = Map.of(
            "comm-api/src/main/java/dev/unicomm/api/CommConfig.java",
                    "the lookup: reads the whole environment and properties",
            "comm-api/src/main/java/dev/unicomm/spi/BackendSettings.java", "the lookup",
            "launcher/src/main/java/dev/unicomm/launch/",
                    "the launch protocol: the launcher passes its settings on to its ranks' environment",
            "cli/src/main/java/dev/unicomm/cli/Main.java", "--verbose hands unicomm.verbose to the in-process launcher",
            "conformance-tests/src/main/java/dev/unicomm/conformance/Pe.java",
                    "the kit's worker protocol (UNICOMM_RANK ... set by the kit)",
            "conformance-tests/src/main/java/dev/unicomm/conformance/KitWorker.java",
                    "the kit's worker protocol (UNICOMM_KIT_* set by the kit)",
            "benchmarks/src/main/java/dev/unicomm/benchmarks/bench/BenchRecording.java",
                    "the bench's rank protocol (UNICOMM_BENCH_JFR set by the bench command)");

    private static final Pattern READ = Pattern.compile(
            "(?:System\\.getProperty|System\\.getenv|Boolean\\.getBoolean|Integer\\.getInteger|Long\\.getLong|System\\.getenv\\(\\)\\.get(?:OrDefault)?)\\(\\s*([^,)]+)");
    private static final Pattern CONSTANT = Pattern.compile("\\b([A-Z][A-Z0-9_]*)\\s*=\\s*\"([^\"]*)\"");

    @Test
    void noMainSourceReadsAUnicommSettingOutsideTheLookup() throws IOException {
        assertEquals(
                List.of(),
                violations(ROOT),
                "read these through BackendSettings / CommConfig.property and list the key in the module's SettingsProvider");
    }

    @Test
    void theScanCatchesPlantedDirectReads(@TempDir Path repo) throws IOException {
        Path dir = Files.createDirectories(repo.resolve("mod/src/main/java/p"));
        Files.writeString(dir.resolve("Direct.java"), """
                package p;
                class Direct {
                    static final String KEY = "unicomm.some.key";
                    String a() { return System.getProperty("unicomm.x"); }
                    String b() { return System.getenv().getOrDefault("UNICOMM_Y", "1"); }
                    String c() { return System.getProperty(KEY, ""); }
                    boolean d() { return Boolean.getBoolean("unicomm.z"); }
                    String fine() { return System.getProperty("java.io.tmpdir") + System.getenv("HOSTNAME"); }
                }
                """);
        assertEquals(
                List.of(
                        "mod/src/main/java/p/Direct.java:4 unicomm.x",
                        "mod/src/main/java/p/Direct.java:5 UNICOMM_Y",
                        "mod/src/main/java/p/Direct.java:6 unicomm.some.key",
                        "mod/src/main/java/p/Direct.java:7 unicomm.z"),
                violations(repo));
    }

    /** {@code file:line key} for every direct read of a {@code unicomm.*} or {@code UNICOMM_*} name outside {@link #ALLOWED}. */
    static List<String> violations(Path root) throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(root)) {
            files = walk.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> !p.toString().contains("/target/"))
                    .filter(p ->
                            root.relativize(p).toString().replace('\\', '/').matches("(.+/)?src/main/java/.+"))
                    .sorted()
                    .toList();
        }
        Map<String, Set<String>> constants = new HashMap<>(); // NAME -> string values, across all main sources
        for (Path f : files) {
            Matcher m = CONSTANT.matcher(Files.readString(f));
            while (m.find())
                constants.computeIfAbsent(m.group(1), k -> new HashSet<>()).add(m.group(2));
        }
        List<String> out = new ArrayList<>();
        for (Path f : files) {
            String rel = root.relativize(f).toString().replace('\\', '/');
            if (ALLOWED.keySet().stream().anyMatch(rel::startsWith)) continue;
            List<String> lines = Files.readAllLines(f);
            for (int i = 0; i < lines.size(); i++) {
                Matcher m = READ.matcher(lines.get(i));
                while (m.find()) {
                    String arg = m.group(1).trim();
                    Set<String> names = arg.startsWith("\"")
                            ? Set.of(arg.replace("\"", ""))
                            : constants.getOrDefault(arg.substring(arg.lastIndexOf('.') + 1), Set.of());
                    for (String n : names)
                        if (n.startsWith("unicomm.") || n.startsWith("UNICOMM_"))
                            out.add(rel + ":" + (i + 1) + " " + n);
                }
            }
        }
        return out;
    }
}
