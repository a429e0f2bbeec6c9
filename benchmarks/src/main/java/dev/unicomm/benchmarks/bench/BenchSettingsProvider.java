package dev.unicomm.benchmarks.bench;

import dev.unicomm.spi.Setting;
import dev.unicomm.spi.SettingsProvider;
import java.util.List;

/** The {@code unicomm bench} commands' own settings (their options cover the rest). */
public final class BenchSettingsProvider implements SettingsProvider {
    @Override
    public List<Setting> settings() {
        return List.of(
                new Setting(
                        RmaBenchCommand.REFERENCE_KEY,
                        "none",
                        "bench rma on a device heap: the native reference program to run beside it when --reference is not given"));
    }
}
