package dev.unicomm.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.spi.Availability;
import dev.unicomm.spi.BackendCommunicator;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.BackendRegistry;
import dev.unicomm.spi.CommBackendProvider;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Issue 45, item 4: messages a user reads say each thing once, in words, and point at what would work. */
class UserFacingMessagesTest {

    record Fake(String name, int priority, Availability availability, Set<Capability> capabilities)
            implements CommBackendProvider {
        @Override
        public BackendCommunicator open(BackendContext context) {
            throw new AssertionError("not opened here");
        }
    }

    private static final Fake SHM = new Fake("shm", 10, Availability.yes(), Set.of(Capability.RMA));
    private static final Fake RDMA = new Fake(
            "rdma",
            200,
            Availability.no("libibverbs.so.1 not found", "install rdma-core"),
            Set.of(Capability.RMA, Capability.P2P_ENDPOINTS));

    private static int occurrences(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) n++;
        return n;
    }

    @Test
    void anAbortPassedOnFromAnotherFailureSaysItsPrefixOnce() {
        assertEquals("rank 2 failed: boom", new CommAbortedException(2, "rank 2 failed: boom").getMessage());
        assertEquals(
                "rank 2 failed: rank 2 hit a bug",
                new CommAbortedException(2, "rank 2 hit a bug").getMessage(),
                "a user's own words stay");
        assertEquals(
                "rank 2 failed: rank 3 sent garbage", new CommAbortedException(2, "rank 3 sent garbage").getMessage());
        assertEquals(
                "the rendezvous host failed: gone",
                new CommAbortedException(-1, "the rendezvous host failed: gone").getMessage());
        RankFailedException once = new RankFailedException(new int[] {1}, "its process exited");
        RankFailedException again = new RankFailedException(new int[] {1}, once.getMessage());
        assertEquals(once.getMessage(), again.getMessage());
        assertEquals(1, occurrences(again.getMessage(), "rank 1 failed"), again.getMessage());
        assertEquals(1, occurrences(again.getMessage(), "call shrink()"), again.getMessage());
    }

    @Test
    void endpointsWithoutAnAvailableBackendThatOffersThemNameTheAvailableOnesAndTheOneThatWould() {
        var e = assertThrows(
                BackendUnavailableException.class,
                () -> Unicomm.endpoints(null, BackendRegistry.of(List.of(SHM, RDMA))));
        String first = e.getMessage().lines().findFirst().orElseThrow();
        assertFalse(first.contains("no unicomm backend is available here"), first);
        assertTrue(
                first.contains("shm")
                        && first.contains("no P2P endpoints")
                        && first.contains("rdma")
                        && first.contains("libibverbs.so.1 not found"),
                first);
        var named = assertThrows(
                IllegalArgumentException.class, () -> Unicomm.endpoints("shm", BackendRegistry.of(List.of(SHM, RDMA))));
        assertTrue(
                named.getMessage().contains("'shm' does not offer P2P endpoints")
                        && named.getMessage().contains("rdma"),
                named.getMessage());
        var none = assertThrows(
                IllegalArgumentException.class, () -> Unicomm.endpoints(null, BackendRegistry.of(List.of(SHM))));
        assertTrue(none.getMessage().contains("shm") && none.getMessage().contains("backend-rdma"), none.getMessage());
    }
}
