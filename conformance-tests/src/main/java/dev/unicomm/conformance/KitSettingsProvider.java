package dev.unicomm.conformance;

import dev.unicomm.spi.Setting;
import dev.unicomm.spi.SettingsProvider;
import java.util.List;

/** The conformance kit's settings ({@link KitSettings}); a suite's plug or hooks may hard-wire them instead. */
public final class KitSettingsProvider implements SettingsProvider {
    @Override public List<Setting> settings() {
        return List.of(
                new Setting(key(KitSettings.BACKEND), "the plug's backend", "backend under test"),
                new Setting(key(KitSettings.RANKS), "2", "ranks (worker JVMs) per suite"),
                new Setting(key(KitSettings.TIMEOUT), "30s", "timeout of every communicator wait in the workers"),
                new Setting(key(KitSettings.RULE_TIMEOUT), "2 x timeout + 10s", "limit for one rule on all ranks before the workers are restarted"),
                new Setting(key(KitSettings.START_TIMEOUT), "timeout + 60s", "limit for a suite's job to start"),
                new Setting(key(KitSettings.HEAP), "64M", "symmetric heap per PE in the workers"),
                new Setting(key(KitSettings.JVM_ARGS), "none", "extra JVM options for the workers, space separated"),
                new Setting(key(KitSettings.CLASSPATH), "none", "extra class path entries for the workers"),
                new Setting(key(KitSettings.REPEAT), "1", "runs of each rule's body in a row"),
                new Setting(key(KitSettings.LOGS), "target/unicomm-kit or the temp folder", "folder for the workers' output logs"));
    }

    private static String key(String property) { return property.substring("unicomm.".length()); }
}
