package dev.unicomm.backend.shm;

import dev.unicomm.spi.Setting;
import dev.unicomm.spi.SettingsProvider;
import java.util.List;

/** The shm backend's settings. */
public final class ShmSettingsProvider implements SettingsProvider {
    @Override
    public List<Setting> settings() {
        return List.of(new Setting(
                ShmBackendProvider.DIR_KEY,
                ShmBackendProvider.DEFAULT_DIR,
                "directory (a tmpfs every rank of the host can write) that holds the heap files"));
    }
}
