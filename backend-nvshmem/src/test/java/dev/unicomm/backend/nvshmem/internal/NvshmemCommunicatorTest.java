package dev.unicomm.backend.nvshmem.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NvshmemCommunicatorTest {

    @Test
    void deviceIsLocalRankModuloDevicesUnlessConfigured() {
        assertEquals(0, NvshmemProcess.chooseDevice(null, 0, 1));
        assertEquals(0, NvshmemProcess.chooseDevice(null, 3, 1));
        assertEquals(1, NvshmemProcess.chooseDevice(null, 5, 2));
        assertEquals(2, NvshmemProcess.chooseDevice("2", 0, 4));
        var bad = assertThrows(IllegalArgumentException.class, () -> NvshmemProcess.chooseDevice("4", 0, 4));
        assertTrue(bad.getMessage().contains("0..3"), bad.getMessage());
        assertThrows(IllegalArgumentException.class, () -> NvshmemProcess.chooseDevice("gpu0", 0, 4));
    }

    @Test
    void moeProfileTakesOffLaunchOrAligned() {
        assertEquals(0, NvshmemSettings.moeProfileMode("false"));
        assertEquals(1, NvshmemSettings.moeProfileMode("true"));
        assertEquals(1, NvshmemSettings.moeProfileMode("launch"));
        assertEquals(2, NvshmemSettings.moeProfileMode(" Aligned "));
        var bad = assertThrows(IllegalArgumentException.class, () -> NvshmemSettings.moeProfileMode("yes"));
        assertTrue(bad.getMessage().contains("aligned") && bad.getMessage().contains("'yes'"), bad.getMessage());
    }
}
