package dev.unicomm.backend.rdma;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.BackendReport;
import dev.unicomm.api.BackendUnavailableException;
import dev.unicomm.api.Capability;
import dev.unicomm.api.CommConfig;
import dev.unicomm.api.NicInfo;
import dev.unicomm.api.Unicomm;
import dev.unicomm.spi.Availability;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.BackendRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The backend loads everywhere; where verbs cannot run (the CI host: no RDMA device, perhaps no
 * rdma-core) availability() names the cause and the fix; where they can (the soft-RoCE VM) it lists
 * the devices.
 */
class RdmaAvailabilityTest {

    @Test
    void providerIsFoundByServiceLoaderWithItsCapabilities() {
        var p = BackendRegistry.load().providers().stream()
                .filter(x -> x.name().equals("rdma"))
                .findFirst();
        assertTrue(p.isPresent(), "ServiceLoader must find the rdma provider");
        assertTrue(p.get()
                .capabilities()
                .containsAll(List.of(
                        Capability.RMA,
                        Capability.NONBLOCKING_RMA,
                        Capability.ATOMICS,
                        Capability.SIGNALS,
                        Capability.TEAMS,
                        Capability.P2P_ENDPOINTS,
                        Capability.MULTI_PROCESS,
                        Capability.MULTI_HOST)));
        assertTrue(p.get().priority() > 100, "rdma must rank above the shared-memory backend");
    }

    @Test
    void availabilityReportsTheCauseOrTheDevices() {
        Availability a = assertDoesNotThrow(() -> new RdmaBackendProvider().availability());
        if (a.available()) {
            List<NicInfo> nics = RdmaEndpoints.get().devices();
            assertFalse(nics.isEmpty(), "available means at least one device");
            assertTrue(
                    nics.stream().flatMap(n -> n.ports().stream()).anyMatch(NicInfo.Port::active),
                    "available means an ACTIVE port");
            return;
        }
        System.out.println(
                "rdma unavailable here (expected outside the soft-RoCE VM): " + a.cause() + " | fix: " + a.fix());
        assertFalse(a.cause().isBlank());
        assertFalse(a.fix().isBlank());
        assertTrue(
                a.cause().contains("libibverbs") || a.cause().contains("RDMA"),
                "cause names what is missing: " + a.cause());
        if (System.getenv("UNICOMM_RDMA_REQUIRE") != null)
            throw new AssertionError("UNICOMM_RDMA_REQUIRE is set but rdma is unavailable: " + a.cause());
    }

    @Test
    void unavailableBackendFailsWithTheReportNotACrash() {
        Availability a = new RdmaBackendProvider().availability();
        if (a.available()) {
            assertEquals("rdma", BackendRegistry.load().select("rdma").name());
            return;
        }
        BackendUnavailableException e =
                assertThrows(BackendUnavailableException.class, () -> Unicomm.endpoints("rdma"));
        assertTrue(e.getMessage().contains("rdma"), e.getMessage());
        BackendReport r = BackendRegistry.report(new RdmaBackendProvider());
        assertFalse(r.available());
        assertEquals(a.cause(), r.cause());
    }

    @Test
    void openWhereVerbsCannotRunThrowsBackendUnavailableWithCauseAndFix() {
        RdmaBackendProvider p = new RdmaBackendProvider();
        Availability a = p.availability();
        if (a.available()) {
            // Inside the soft-RoCE VM (where nothing may skip): the same gate lets an available backend through.
            a.ensureAvailable(p);
            assertTrue(a.cause().isEmpty() && a.error() == null, a.toString());
            return;
        }
        var config = new CommConfig("rdma", 0, 1, 0, null, 0, null, false, Duration.ofSeconds(5), 1 << 16, Map.of());
        // No store: open must fail on the availability check before it touches one.
        var e = assertThrows(BackendUnavailableException.class, () -> new RdmaBackendProvider()
                .open(new BackendContext(config, null)));
        assertTrue(e.getMessage().contains("backend 'rdma'"), e.getMessage());
        assertTrue(e.getMessage().contains(a.cause()), e.getMessage());
        assertTrue(e.getMessage().contains(a.fix()), e.getMessage());
        assertTrue(a.fix().contains("see docs/troubleshooting.md#rdma-"), a.fix());
        // The device part is probed afresh on each call: the same failure, not the same object.
        if (a.error() == null) assertEquals(null, e.getCause());
        else assertEquals(a.error().toString(), String.valueOf(e.getCause()));
    }
}
