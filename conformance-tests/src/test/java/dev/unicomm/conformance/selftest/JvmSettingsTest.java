package dev.unicomm.conformance.selftest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.unicomm.conformance.KitReport;
import dev.unicomm.conformance.KitRunner;
import dev.unicomm.conformance.KitSettings;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** -J options (the workers' JVM options) reach every communicator the kit opens, not only the suite's own. */
class JvmSettingsTest {
    @Test void extraCommunicatorsUseTheRunsJvmSettings() {
        KitReport r = KitRunner.run(List.of(JvmSettingsFixture.class),
                Map.of(KitSettings.JVM_ARGS, "-D" + JvmSettingsFixture.MARKER + "=from-jvm-args"), null, null);
        assertEquals(1, r.entries().size(), r.table());
        assertEquals(KitReport.Result.PASSED, r.entries().getFirst().result(), r.table());
    }
}
