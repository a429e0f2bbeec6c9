package dev.unicomm.backend.nvshmem.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommConfig;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** unicomm.nvshmem.moe.elastic follows the job's elastic mode unless set itself (no GPU needed: settings only). */
class NvshmemSettingsTest {
    private static NvshmemSettings settings(Map<String, String> props) {
        return NvshmemSettings.of(
                new CommConfig("nvshmem", 0, 2, 0, "127.0.0.1", 0, null, false, Duration.ofSeconds(5), 1L << 20, props),
                false);
    }

    @Test
    void moeElasticFollowsTheJobsElasticMode() {
        assertFalse(settings(Map.of()).moeElastic());
        assertTrue(settings(Map.of("unicomm.elastic", "true")).moeElastic());
    }

    @Test
    void moeElasticCanBeSetApart() {
        assertTrue(settings(Map.of("unicomm.nvshmem.moe.elastic", "true")).moeElastic());
        assertFalse(settings(Map.of("unicomm.elastic", "true", "unicomm.nvshmem.moe.elastic", "false"))
                .moeElastic());
    }
}
