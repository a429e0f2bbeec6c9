package dev.unicomm.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The settings registry: one key form, system property before environment before default, and where each value came from. */
class SettingsRegistryTest {
    static final Setting DIR = new Setting("shm.dir", "/dev/shm", "heap files");
    static final Setting SLOT = new Setting("collectives.slot.bytes", "65536", "slot");
    static final Setting TIMEOUT = new Setting("timeout", "60s", "waits");

    @Test
    void eachValueSaysWhereItCameFrom() {
        Map<String, String> props = Map.of("unicomm.shm.dir", "/tmp/a");
        Map<String, String> env = Map.of("UNICOMM_SHM_DIR", "/tmp/b", "UNICOMM_COLLECTIVES_SLOT_BYTES", "4096");
        List<SettingsRegistry.Value> v = SettingsRegistry.effective(List.of(TIMEOUT, DIR, SLOT), env, props::get);
        assertEquals(
                List.of("collectives.slot.bytes", "shm.dir", "timeout"),
                v.stream().map(x -> x.setting().key()).toList(),
                "sorted by key");
        assertEquals(new SettingsRegistry.Value(SLOT, "4096", "environment UNICOMM_COLLECTIVES_SLOT_BYTES"), v.get(0));
        assertEquals(new SettingsRegistry.Value(DIR, "/tmp/a", "system property unicomm.shm.dir"), v.get(1));
        assertEquals(new SettingsRegistry.Value(TIMEOUT, "60s", SettingsRegistry.DEFAULT), v.get(2));
    }

    @Test
    void aSettingNamesItsPropertyAndVariable() {
        assertEquals("unicomm.collectives.slot.bytes", SLOT.property());
        assertEquals("UNICOMM_COLLECTIVES_SLOT_BYTES", SLOT.variable());
        assertEquals(
                BackendSettings.from(Map.of(SLOT.variable(), "x"), k -> null).get(SLOT.key()),
                "x",
                "the lookup uses the same variable name");
    }

    @Test
    void badSettingsAreRefusedWithTheReason() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new Setting("unicomm.shm.dir", "x", "y"))
                .getMessage()
                .contains("without the 'unicomm.' prefix"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new Setting("shm.dir", null, "y"))
                .getMessage()
                .contains("needs a default"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> new Setting("shm.dir", "x", " "))
                .getMessage()
                .contains("needs a meaning"));
    }

    @Test
    void aTableGivesOneSettingPerRowAndRefusesABadRow() {
        assertEquals(List.of(DIR, TIMEOUT), Setting.table("""
                shm.dir | /dev/shm | heap files

                timeout | 60s      | waits
                """));
        IllegalArgumentException e =
                assertThrows(IllegalArgumentException.class, () -> Setting.table("shm.dir | /dev/shm"));
        assertTrue(e.getMessage().contains("'shm.dir | /dev/shm'"), e.getMessage());
    }

    @Test
    void comm_apiRegistersItsOwnKeys() {
        List<String> keys = SettingsRegistry.all().stream().map(Setting::key).toList();
        assertTrue(keys.containsAll(List.of("timeout", "heap.size", "store", "token", "elastic")), keys.toString());
    }
}
