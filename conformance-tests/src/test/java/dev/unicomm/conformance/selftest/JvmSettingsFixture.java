package dev.unicomm.conformance.selftest;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.KitSuite;
import org.junit.jupiter.api.Test;

/** A rule that opens an extra communicator's configuration; run by {@link JvmSettingsTest} with a -D option for the workers. */
public class JvmSettingsFixture extends KitSuite {
    static final String MARKER = "unicomm.kit.selftest.marker";

    static final KitPlug PLUG = KitPlug.backend("shm").ranks(2);

    @Override
    protected boolean connectAtStart() {
        return false;
    }

    @Test
    void required_harness_extra_communicator_keeps_jvm_settings() {
        spmd(pe -> {
            var fresh = pe.freshConfig();
            assertEquals(
                    "from-jvm-args",
                    fresh.property("kit.selftest.marker", null),
                    "an extra communicator's configuration must carry the workers' -D settings");
            assertEquals(pe.rank(), fresh.rank(), "and keep this worker's rank");
            pe.report(fresh.property("kit.selftest.marker", "(missing)"));
        });
    }
}
