package dev.unicomm.backend.ucx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.BackendUnavailableException;
import dev.unicomm.api.Capability;
import dev.unicomm.api.CommConfig;
import dev.unicomm.spi.Availability;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.BackendSettings;
import java.util.EnumSet;
import java.util.Map;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/** The provider's promises: found by ServiceLoader, below shm, and a missing libucp reported with cause and fix, never a crash. */
class UcxBackendProviderTest {
    private static final String MISSING = "/nonexistent/unicomm-test/libucp.so.0";

    @Test
    void isFoundByServiceLoaderWithItsNameAndCapabilities() {
        var found = ServiceLoader.load(dev.unicomm.spi.CommBackendProvider.class).stream()
                .map(ServiceLoader.Provider::get)
                .filter(p -> p.name().equals("ucx"))
                .toList();
        assertEquals(1, found.size());
        assertTrue(found.get(0)
                .capabilities()
                .containsAll(EnumSet.of(Capability.RMA, Capability.ATOMICS, Capability.SIGNALS, Capability.TEAMS)));
        assertFalse(found.get(0).capabilities().contains(Capability.DIRECT_PEER_ACCESS), "peers may be on other hosts");
        assertTrue(
                UcxBackendProvider.PRIORITY < dev.unicomm.spi.BackendPriority.HOST,
                "shm is the better choice when every rank shares a host");
    }

    @Test
    void aMissingLibraryIsUnavailableWithTheCauseAndTheFix() {
        BackendSettings settings = BackendSettings.from(Map.of("UNICOMM_UCX_LIBRARY", MISSING), k -> null);
        Availability a = new UcxBackendProvider().availability(settings);
        assertFalse(a.available());
        assertTrue(a.cause().contains(MISSING) && a.cause().contains("not found"), a.cause());
        assertTrue(a.fix().contains("apt-get install libucx0"), a.fix());
        assertTrue(a.error() != null, "the loader's exception is kept");
    }

    @Test
    void openingWithAMissingLibraryThrowsBeforeAnyNativeCall() {
        CommConfig config = CommConfig.single("ucx");
        CommConfig withLib = CommConfig.fromEnvironment(
                Map.of("UNICOMM_UCX_LIBRARY", MISSING, "UNICOMM_BACKEND", "ucx"), new java.util.Properties());
        assertEquals(MISSING, withLib.property("ucx.library", null));
        var e = assertThrows(BackendUnavailableException.class, () -> new UcxBackendProvider()
                .open(new BackendContext(withLib, null)));
        assertTrue(e.getMessage().contains("libucx0"), e.getMessage());
        assertEquals("ucx", config.backend());
    }
}
