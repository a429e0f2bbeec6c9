package dev.unicomm.conformance;

import dev.unicomm.spi.Setting;
import dev.unicomm.spi.SettingsProvider;
import java.util.List;

/** The conformance kit's settings ({@link KitSettings}); a suite's plug or hooks may hard-wire them instead. */
public final class KitSettingsProvider implements SettingsProvider {
    @Override
    public List<Setting> settings() {
        return Setting.table("""
                kit.backend       | the plug's backend                     | backend under test
                kit.ranks         | 2                                      | ranks (worker JVMs) per suite
                kit.timeout       | 30s                                    | timeout of every communicator wait in the workers
                kit.rule.timeout  | 2 x timeout + 10s                      | limit for one rule on all ranks before the workers are restarted
                kit.start.timeout | timeout + 60s                          | limit for a suite's job to start
                kit.heap          | 64M                                    | symmetric heap per PE in the workers
                kit.jvm.args      | none                                   | extra JVM options for the workers, space separated
                kit.classpath     | none                                   | extra class path entries for the workers
                kit.repeat        | 1                                      | runs of each rule's body in a row
                kit.logs          | target/unicomm-kit or the temp folder  | folder for the workers' output logs
                """);
    }
}
