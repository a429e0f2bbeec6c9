package dev.unicomm.spi;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One {@code unicomm.*} setting: its key (without the {@code unicomm.} prefix, e.g. {@code shm.dir}), its
 * default as a user would write it, and what it means. Every module lists its settings through a
 * {@link SettingsProvider}; {@link SettingsRegistry} gathers them, and {@code unicomm info --settings} prints
 * them with their effective values. Values are looked up as {@link BackendSettings} does: the system property
 * {@link #property()}, else the environment variable {@link #variable()}.
 *
 * @param key          the key without the prefix: dot-separated words
 * @param defaultValue the value used when the setting is unset, or a phrase for a computed default
 * @param meaning      one line: what the setting changes
 */
public record Setting(String key, String defaultValue, String meaning) {
    public Setting {
        if (key == null || key.isBlank() || key.startsWith("unicomm.") || !key.equals(key.trim()))
            throw new IllegalArgumentException(
                    "a setting's key is given without the 'unicomm.' prefix and without spaces, got '" + key + "'");
        if (defaultValue == null)
            throw new IllegalArgumentException(
                    "setting " + key + " needs a default (a phrase such as 'unset' where none)");
        if (meaning == null || meaning.isBlank())
            throw new IllegalArgumentException("setting " + key + " needs a meaning");
    }

    /**
     * Settings from a table, one per line: {@code key | default | meaning} (blank lines skipped), so that a module
     * lists its keys as one readable block. A line without exactly three {@code |}-separated cells is refused, naming it.
     */
    public static List<Setting> table(String rows) {
        List<Setting> out = new ArrayList<>();
        for (String line : rows.strip().split("\n")) {
            if (line.isBlank()) continue;
            String[] cells = line.split("\\|", -1);
            if (cells.length != 3)
                throw new IllegalArgumentException(
                        "a settings row is 'key | default | meaning', got '" + line.strip() + "'");
            out.add(new Setting(cells[0].strip(), cells[1].strip(), cells[2].strip()));
        }
        return List.copyOf(out);
    }

    /** The system property: {@code unicomm.KEY}. */
    public String property() {
        return "unicomm." + key;
    }

    /** The environment variable: {@code UNICOMM_KEY}, dots as underscores, upper case. */
    public String variable() {
        return variable(key);
    }

    /** The environment variable of {@code key} (given without the prefix). */
    public static String variable(String key) {
        return "UNICOMM_" + key.toUpperCase(Locale.ROOT).replace('.', '_');
    }
}
