package dev.unicomm.spi;

import dev.unicomm.api.CommConfig;
import java.util.Map;
import java.util.function.Function;

/**
 * A backend's settings, looked up the one way unicomm documents: {@code unicomm.KEY} as a system
 * property, else the environment variable {@code UNICOMM_KEY} (dots as underscores, upper case).
 * Keys are given without the prefix, e.g. {@code rdma.device}. Handed to
 * {@link CommBackendProvider#availability(BackendSettings)} so that a backend does not re-implement
 * the lookup; {@link #of(CommConfig)} gives the same view of an opened job's configuration. This is the
 * one lookup: code reads {@code unicomm.*} settings through it (or {@link CommConfig#property}), never through
 * {@code System.getProperty}/{@code getenv}, and lists each key once in a {@link SettingsProvider}.
 */
@FunctionalInterface
public interface BackendSettings {

    /** The value of {@code key}, or {@code null}. */
    String get(String key);

    /** The value of {@code key}, or {@code def}. */
    default String get(String key, String def) {
        String v = get(key);
        return v == null ? def : v;
    }

    /** System properties, then environment variables of this process. */
    static BackendSettings fromEnvironment() {
        return from(System.getenv(), System::getProperty);
    }

    /** The lookup over {@code env} and {@code systemProperties} (tests, embedding). */
    static BackendSettings from(Map<String, String> env, Function<String, String> systemProperties) {
        return key -> {
            String v = systemProperties.apply("unicomm." + key);
            return v != null ? v : env.get(Setting.variable(key));
        };
    }

    /** The settings of an opened job ({@link CommConfig#property}). */
    static BackendSettings of(CommConfig config) {
        return key -> config.property(key, null);
    }
}
