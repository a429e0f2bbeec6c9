package dev.unicomm.spi;

import java.util.List;

/**
 * A module's list of its {@code unicomm.*} settings, found with {@link java.util.ServiceLoader} (register the
 * class in {@code META-INF/services/dev.unicomm.spi.SettingsProvider} and in {@code module-info} with
 * {@code provides}). The API lists no backend's settings itself: each backend contributes its own, and
 * {@link SettingsRegistry} gathers them all.
 */
public interface SettingsProvider {
    /** The module's settings, each once. */
    List<Setting> settings();
}
