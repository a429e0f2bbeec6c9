package dev.unicomm.conformance;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;

/**
 * What a report certifies, so that a published one can be checked: which kit (its version and the
 * identity of its rule set, a digest over every rule id and clause of the default run), which unicomm
 * API it ran on, and the run's settings (timeouts, heap, workers' JVM options, repeats).
 *
 * @param kitVersion     the conformance kit's version
 * @param unicommVersion the version of the unicomm API (comm-api) on the run's class or module path
 * @param ruleCount      rules in the kit's default run
 * @param ruleSetDigest  {@code sha256:} over the default run's {@code suite/rule/clause} lines, sorted
 * @param settings       the run's settings, by {@link KitSettings} name (and the hooks' effective values)
 * @param jvmOptions     the workers' JVM options
 */
public record Provenance(
        String kitVersion,
        String unicommVersion,
        int ruleCount,
        String ruleSetDigest,
        Map<String, String> settings,
        List<String> jvmOptions) {

    public Provenance {
        settings = Map.copyOf(settings);
        jvmOptions = List.copyOf(jvmOptions);
    }

    /** The kit's version: its module's, else its manifest's, else the one the build wrote into {@code kit.properties}. */
    public static String currentKitVersion() {
        return versionOf(KitSuite.class, "kit.version");
    }

    /** The unicomm API's version on this path: comm-api's module or manifest version, else the one the kit was built against. */
    public static String currentUnicommVersion() {
        return versionOf(dev.unicomm.api.Communicator.class, "unicomm.built.against");
    }

    private static String versionOf(Class<?> c, String builtKey) {
        String v = c.getModule().getDescriptor() == null
                ? null
                : c.getModule().getDescriptor().rawVersion().orElse(null);
        if (v == null) v = c.getPackage().getImplementationVersion();
        if (v == null) v = builtIn().getProperty(builtKey);
        return v == null || v.contains("${") ? "unknown" : v;
    }

    private static Properties builtIn() {
        Properties p = new Properties();
        try (InputStream in = KitSuite.class.getResourceAsStream("kit.properties")) {
            if (in != null) p.load(in);
        } catch (IOException e) {
            // no built-in versions: reported as unknown
        }
        return p;
    }

    /** The rule set of the default run as sorted {@code suite/rule/clause} lines. */
    static List<String> ruleSet() {
        return KitSuites.defaultRun().stream()
                .flatMap(s ->
                        KitSuites.rules(s).stream().map(r -> KitSuites.shortName(s) + "/" + r + "/" + clause(s, r)))
                .sorted()
                .toList();
    }

    private static String clause(Class<?> suite, String rule) {
        for (Class<?> c = suite; c != null && c != Object.class; c = c.getSuperclass()) {
            try {
                Verifies v = c.getDeclaredMethod(rule).getAnnotation(Verifies.class);
                return v == null ? "" : v.value();
            } catch (NoSuchMethodException e) {
                // declared further up
            }
        }
        return "";
    }

    /** {@code sha256:<hex>} of {@code lines} joined by newlines. */
    static String digest(List<String> lines) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256")
                    .digest(String.join("\n", lines).getBytes(StandardCharsets.UTF_8));
            return "sha256:" + HexFormat.of().formatHex(d);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing from this JDK", e);
        }
    }

    /** The provenance of a run with these effective settings and worker JVM options. */
    static Provenance of(Map<String, String> settings, List<String> jvmOptions) {
        List<String> rules = ruleSet();
        return new Provenance(
                currentKitVersion(), currentUnicommVersion(), rules.size(), digest(rules), settings, jvmOptions);
    }

    /** As a JSON object. */
    String json() {
        return "{\"kitVersion\": " + KitReport.str(kitVersion) + ", \"unicommVersion\": "
                + KitReport.str(unicommVersion)
                + ", \"ruleSet\": {\"rules\": " + ruleCount + ", \"digest\": " + KitReport.str(ruleSetDigest) + "}"
                + ", \"settings\": "
                + settings.entrySet().stream()
                        .sorted(Map.Entry.comparingByKey())
                        .map(e -> KitReport.str(e.getKey()) + ": " + KitReport.str(e.getValue()))
                        .collect(Collectors.joining(", ", "{", "}"))
                + ", \"jvmOptions\": "
                + jvmOptions.stream().map(KitReport::str).collect(Collectors.joining(", ", "[", "]")) + "}";
    }
}
