package dev.unicomm.spi;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * The one place that lists every {@code unicomm.*} setting: what the {@link SettingsProvider}s on the class
 * or module path contribute (comm-api's own, the portable collectives', each backend's, the kit's), with
 * defaults and meanings, and each setting's effective value in this process and where it came from.
 */
public final class SettingsRegistry {
    /** Where a value came from when neither a system property nor an environment variable sets it. */
    public static final String DEFAULT = "default";

    private SettingsRegistry() {}

    /**
     * A setting's effective value.
     *
     * @param setting the setting
     * @param value   the value in effect (its default where unset)
     * @param source  {@code system property unicomm.KEY}, {@code environment UNICOMM_KEY}, or {@value #DEFAULT}
     */
    public record Value(Setting setting, String value, String source) {}

    /** Every registered setting, sorted by key; a key two modules both register is an error naming both. */
    public static List<Setting> all() {
        Map<String, Setting> byKey = new TreeMap<>();
        Map<String, String> owner = new TreeMap<>();
        for (SettingsProvider p : ServiceLoader.load(SettingsProvider.class)) {
            for (Setting s : p.settings()) {
                String by = p.getClass().getName();
                if (byKey.putIfAbsent(s.key(), s) != null)
                    throw new IllegalStateException("setting unicomm." + s.key() + " is registered by both "
                            + owner.get(s.key()) + " and " + by);
                owner.put(s.key(), by);
            }
        }
        return List.copyOf(byKey.values());
    }

    /** Every registered setting's value in this process's system properties and environment. */
    public static List<Value> effective() {
        return effective(all(), System.getenv(), System::getProperty);
    }

    /** The values of {@code settings} in {@code env} and {@code systemProperties}, looked up as {@link BackendSettings#from}. */
    public static List<Value> effective(
            List<Setting> settings, Map<String, String> env, Function<String, String> systemProperties) {
        BackendSettings lookup = BackendSettings.from(env, systemProperties);
        List<Value> out = new ArrayList<>();
        for (Setting s : settings) {
            String v = lookup.get(s.key());
            String source = v == null
                    ? DEFAULT
                    : systemProperties.apply(s.property()) != null
                            ? "system property " + s.property()
                            : "environment " + s.variable();
            out.add(new Value(s, v == null ? s.defaultValue() : v, source));
        }
        out.sort(Comparator.comparing(v -> v.setting().key()));
        return List.copyOf(out);
    }
}
