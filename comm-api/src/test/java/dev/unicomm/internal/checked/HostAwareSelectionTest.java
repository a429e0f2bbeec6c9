package dev.unicomm.internal.checked;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.Capability;
import dev.unicomm.api.CommException;
import dev.unicomm.api.HostTopology;
import dev.unicomm.spi.Availability;
import dev.unicomm.spi.BackendCommunicator;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.BackendRegistry;
import dev.unicomm.spi.CommBackendProvider;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HostAwareSelectionTest {
    record Fake(String name, int priority, Availability availability, Set<Capability> capabilities)
            implements CommBackendProvider {
        @Override
        public BackendCommunicator open(BackendContext context) {
            throw new AssertionError("selection must not open");
        }
    }

    static final Fake SHM = new Fake("shm", 100, Availability.yes(), Set.of(Capability.RMA, Capability.MULTI_PROCESS));
    static final Fake NET = new Fake("net", 50, Availability.yes(), Set.of(Capability.RMA, Capability.MULTI_HOST));
    static final Fake NIC = new Fake(
            "nic",
            200,
            Availability.no("no RDMA device", "plug one in"),
            Set.of(Capability.RMA, Capability.MULTI_HOST));
    static final HostTopology ONE = HostTopology.singleHost(0, 4, "node0");
    static final HostTopology TWO = new HostTopology(0, new int[] {0, 0, 1, 1}, List.of("node0", "node1"));

    @Test
    void oneHostSelectsAsBefore() {
        assertSame(SHM, HostAwareSelection.select(BackendRegistry.of(List.of(SHM, NET, NIC)), null, ONE));
    }

    @Test
    void severalHostsSelectTheBestBackendThatSpansThem() {
        assertSame(NET, HostAwareSelection.select(BackendRegistry.of(List.of(SHM, NET, NIC)), null, TWO));
    }

    @Test
    void namingABackendThatCannotSpanTheHostsIsOneLineNamingHostsAndAlternatives() {
        CommException e = assertThrows(
                CommException.class,
                () -> HostAwareSelection.select(BackendRegistry.of(List.of(SHM, NET, NIC)), "shm", TWO));
        assertEquals(
                "backend 'shm' cannot span hosts, but this job runs on 2 hosts: node0 (ranks 0-1), node1 (ranks 2-3); backends here "
                        + "that can: net (available), nic (unavailable: no RDMA device); name one with UNICOMM_BACKEND",
                e.getMessage());
        assertTrue(e.getCause() == null && !e.getMessage().contains("\n"));
    }

    @Test
    void noBackendThatSpansHostsSaysWhichArtifactsWould() {
        CommException e = assertThrows(
                CommException.class, () -> HostAwareSelection.select(BackendRegistry.of(List.of(SHM)), null, TWO));
        assertTrue(
                e.getMessage()
                        .startsWith(
                                "this job runs on 2 hosts: node0 (ranks 0-1), node1 (ranks 2-3), but no backend on the class path"
                                        + " can span hosts (shm cannot); add one that can: backend-ucx"),
                e.getMessage());
    }

    /** Rank 0's verdict judges only the hosts: an unavailable or unknown backend each rank reports itself, as on one host. */
    @Test
    void theVerdictOnTheHostsLeavesAvailabilityAndNamesToEachRank() {
        BackendRegistry registry = BackendRegistry.of(List.of(SHM, NIC));
        assertNull(HostAwareSelection.refusal(registry, "nic", ONE));
        assertNull(HostAwareSelection.refusal(registry, null, ONE));
        assertNull(HostAwareSelection.refusal(registry, "nic", TWO));
        assertNull(HostAwareSelection.refusal(registry, "nope", TWO));
        assertThrows(
                dev.unicomm.api.BackendUnavailableException.class,
                () -> HostAwareSelection.select(registry, "nic", TWO));
        assertThrows(IllegalArgumentException.class, () -> HostAwareSelection.select(registry, "nope", TWO));
    }

    @Test
    void hostMapsRoundTripThroughTheirWireForm() {
        String map = HostAgreement.encode(new String[] {"a|b1|n1", "a|b1|n1", "a|b1|n2", "c|b2|n1"});
        assertEquals(
                "0,0,1,2;a,a#2,c",
                map,
                "two namespaces of one machine with one hostname are two hosts, told apart by #2");
        HostTopology t = HostAgreement.decode(2, 4, map);
        assertEquals("3 hosts: a (ranks 0-1), a#2 (ranks 2), c (ranks 3)", t.toString());
        assertThrows(CommException.class, () -> HostAgreement.decode(0, 3, map));
    }
}
