package dev.unicomm.collectives.moe;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.spi.BackendSettings;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The MoE's direct switch: {@code unicomm.collectives.direct} (true or false, anything else named in the error), and the
 * deprecated {@code unicomm.moe.direct} only where that is unset.
 */
class PeersSettingTest {
    private static boolean direct(Map<String, String> properties, Map<String, String> env) {
        return Peers.directAllowed(BackendSettings.from(env, properties::get));
    }

    @Test
    void readsTrueAndFalseAndRejectsTheRest() {
        assertTrue(direct(Map.of(), Map.of()), "default: direct");
        assertFalse(direct(Map.of("unicomm.collectives.direct", " FALSE "), Map.of()));
        assertFalse(direct(Map.of(), Map.of("UNICOMM_COLLECTIVES_DIRECT", "false")));
        assertTrue(
                direct(Map.of("unicomm.collectives.direct", "true"), Map.of("UNICOMM_COLLECTIVES_DIRECT", "false")),
                "property before environment");
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> direct(Map.of("unicomm.collectives.direct", "yes"), Map.of()));
        assertTrue(
                e.getMessage().contains("unicomm.collectives.direct (UNICOMM_COLLECTIVES_DIRECT)")
                        && e.getMessage().contains("'yes'"),
                e.getMessage());
    }

    @Test
    void theDeprecatedKeyStillWorksWhereTheNewOneIsUnset() {
        assertFalse(direct(Map.of("unicomm.moe.direct", "false"), Map.of()));
        assertFalse(direct(Map.of(), Map.of("UNICOMM_MOE_DIRECT", "false")));
        Map<String, String> both =
                new HashMap<>(Map.of("unicomm.moe.direct", "false", "unicomm.collectives.direct", "true"));
        assertTrue(direct(both, Map.of()), "the new key wins over the deprecated one");
        IllegalArgumentException e = assertThrows(
                IllegalArgumentException.class, () -> direct(Map.of("unicomm.moe.direct", "no"), Map.of()));
        assertTrue(
                e.getMessage().contains("unicomm.moe.direct (UNICOMM_MOE_DIRECT)")
                        && e.getMessage().contains("'no'"),
                e.getMessage());
    }
}
