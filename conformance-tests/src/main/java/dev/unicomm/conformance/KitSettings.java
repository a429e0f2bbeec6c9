package dev.unicomm.conformance;

import dev.unicomm.spi.BackendSettings;
import java.time.Duration;
import java.util.Locale;

/**
 * The kit's knobs, each a system property {@code unicomm.kit.X} or, failing that, an environment
 * variable {@code UNICOMM_KIT_X} (dots become underscores). Suites read them through their hooks
 * ({@link KitSuite#backend()}, {@link KitSuite#ranks()}, ...), so a subclass may also hard-wire them.
 */
public final class KitSettings {
    private KitSettings() {}

    /** Backend under test. */
    public static final String BACKEND = "unicomm.kit.backend";
    /** Ranks (worker JVMs) per suite; default 2. */
    public static final String RANKS = "unicomm.kit.ranks";
    /** Timeout of every communicator wait in the workers (barrier, signal, store); default 30s. */
    public static final String TIMEOUT = "unicomm.kit.timeout";
    /** Limit for one rule on all ranks before the parent gives up and restarts the workers; default 2 x timeout + 10s. */
    public static final String RULE_TIMEOUT = "unicomm.kit.rule.timeout";
    /** Limit for a suite's job to start (every worker JVM connected and opened); default timeout + 60s. */
    public static final String START_TIMEOUT = "unicomm.kit.start.timeout";
    /** Symmetric heap per PE in the workers; default 64M. */
    public static final String HEAP = "unicomm.kit.heap";
    /** Extra JVM options for the workers, space separated. */
    public static final String JVM_ARGS = "unicomm.kit.jvm.args";
    /** Extra class path entries for the workers (where the backend under test lives). */
    public static final String CLASSPATH = "unicomm.kit.classpath";
    /** Runs of each rule's body in a row (a rule fails if any run fails, saying in how many); default 1. */
    public static final String REPEAT = "unicomm.kit.repeat";
    /** Folder for the workers' output logs; default target/unicomm-kit or the temp folder. */
    public static final String LOGS = "unicomm.kit.logs";

    /** Every setting, for the report's provenance. */
    public static final java.util.List<String> ALL = java.util.List.of(
            BACKEND, RANKS, TIMEOUT, RULE_TIMEOUT, START_TIMEOUT, HEAP, JVM_ARGS, CLASSPATH, REPEAT, LOGS);

    /** The property, else the environment variable (the settings lookup), else {@code def}; blank counts as unset. */
    public static String get(String property, String def) {
        if (!property.startsWith("unicomm."))
            throw new IllegalArgumentException("a kit setting is a unicomm.* property, got '" + property + "'");
        String v = BackendSettings.fromEnvironment().get(property.substring("unicomm.".length()));
        return v == null || v.isBlank() ? def : v.trim();
    }

    /** An integer setting. */
    public static int getInt(String property, int def) {
        String v = get(property, null);
        if (v == null) return def;
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(property + " must be an integer, got '" + v + "'");
        }
    }

    /** A duration setting: {@code 30s}, {@code 500ms}, {@code 2m} or plain seconds. */
    public static Duration getDuration(String property, Duration def) {
        String v = get(property, null);
        return v == null ? def : parseDuration(property, v);
    }

    static Duration parseDuration(String what, String v) {
        String s = v.trim().toLowerCase(Locale.ROOT);
        try {
            if (s.endsWith("ms")) return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
            if (s.endsWith("s")) return Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1)));
            if (s.endsWith("m")) return Duration.ofMinutes(Long.parseLong(s.substring(0, s.length() - 1)));
            return Duration.ofSeconds(Long.parseLong(s));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " must look like 30s, 500ms, 2m or 30, got '" + v + "'");
        }
    }
}
