package dev.unicomm.backend.nvshmem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import dev.unicomm.api.BackendUnavailableException;
import dev.unicomm.api.Capability;
import dev.unicomm.api.CommConfig;
import dev.unicomm.internal.rendezvous.LocalStore;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.BackendRegistry;
import dev.unicomm.spi.CommBackendProvider;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

class NvshmemBackendProviderTest {

    @Test
    void serviceLoaderFindsTheProvider() {
        boolean found = ServiceLoader.load(CommBackendProvider.class).stream()
                .anyMatch(p -> p.type() == NvshmemBackendProvider.class);
        assertTrue(found, "META-INF/services must register NvshmemBackendProvider");
    }

    @Test
    void declaresTheGpuCapabilities() {
        var caps = new NvshmemBackendProvider().capabilities();
        for (Capability c : new Capability[] {
            Capability.RMA,
            Capability.SIGNALS,
            Capability.ATOMICS,
            Capability.TEAMS,
            Capability.STREAMS,
            Capability.DEVICE_MEMORY_CUDA,
            Capability.NATIVE_COLLECTIVES,
            Capability.MULTI_PROCESS
        }) assertTrue(caps.contains(c), "missing " + c);
        // The heap is GPU memory: no host load/store into peers.
        assertFalse(caps.contains(Capability.DIRECT_PEER_ACCESS));
    }

    @Test
    void reportCarriesCauseAndFixWhenUnavailable() {
        var report = BackendRegistry.report(new NvshmemBackendProvider());
        assertEquals("nvshmem", report.name());
        if (!report.available()) {
            assertFalse(report.cause().isBlank());
            assertFalse(report.fix().isBlank());
        }
    }

    @Test
    void openingWhereUnavailableThrowsBackendUnavailableWithCauseAndFix() {
        var provider = new NvshmemBackendProvider();
        var a = provider.availability();
        assumeFalse(a.available(), "a GPU with NVSHMEM is available here; the unavailable path cannot be seen");
        var ctx = new BackendContext(CommConfig.single("nvshmem"), new LocalStore(CommConfig.DEFAULT_TIMEOUT));
        var e = assertThrows(BackendUnavailableException.class, () -> provider.open(ctx));
        assertTrue(e.getMessage().contains("backend 'nvshmem'"), e.getMessage());
        assertTrue(e.getMessage().contains(a.cause()), e.getMessage());
        assertTrue(e.getMessage().contains(a.fix()), e.getMessage());
        assertSame(a.error(), e.getCause());
    }
}
