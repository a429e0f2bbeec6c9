package dev.unicomm.backend.nvshmem.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class NvshmemCommunicatorTest {

    @Test
    void deviceIsLocalRankModuloDevicesUnlessConfigured() {
        assertEquals(0, NvshmemCommunicator.chooseDevice(null, 0, 1));
        assertEquals(0, NvshmemCommunicator.chooseDevice(null, 3, 1));
        assertEquals(1, NvshmemCommunicator.chooseDevice(null, 5, 2));
        assertEquals(2, NvshmemCommunicator.chooseDevice("2", 0, 4));
        var bad = assertThrows(IllegalArgumentException.class, () -> NvshmemCommunicator.chooseDevice("4", 0, 4));
        assertTrue(bad.getMessage().contains("0..3"), bad.getMessage());
        assertThrows(IllegalArgumentException.class, () -> NvshmemCommunicator.chooseDevice("gpu0", 0, 4));
    }

    @Test
    void moeProfileTakesOffLaunchOrAligned() {
        assertEquals(0, NvshmemCommunicator.moeProfileMode("false"));
        assertEquals(1, NvshmemCommunicator.moeProfileMode("true"));
        assertEquals(1, NvshmemCommunicator.moeProfileMode("launch"));
        assertEquals(2, NvshmemCommunicator.moeProfileMode(" Aligned "));
        var bad = assertThrows(IllegalArgumentException.class, () -> NvshmemCommunicator.moeProfileMode("yes"));
        assertTrue(bad.getMessage().contains("aligned") && bad.getMessage().contains("'yes'"), bad.getMessage());
    }
}
