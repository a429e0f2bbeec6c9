package dev.unicomm.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.BackendReport;
import dev.unicomm.api.BackendUnavailableException;
import dev.unicomm.api.Capability;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The selection rules: explicit name, priority, unavailable, unknown name, zero providers. */
class BackendRegistryTest {

    /** A provider whose availability is fixed; open is never reached by these tests. */
    record FakeProvider(String name, int priority, Availability availability) implements CommBackendProvider {
        @Override
        public Set<Capability> capabilities() {
            return Set.of(Capability.RMA);
        }

        @Override
        public BackendCommunicator open(BackendContext context) {
            throw new AssertionError("selection must not open a backend");
        }
    }

    static final FakeProvider FAST =
            new FakeProvider("fast", 100, Availability.no("no fast NIC", "install the fast driver"));
    static final FakeProvider GOOD = new FakeProvider("good", 50, Availability.yes());
    static final FakeProvider SLOW = new FakeProvider("slow", 10, Availability.yes());

    @Test
    void explicitNameWinsOverPriority() {
        assertSame(SLOW, BackendRegistry.of(List.of(FAST, GOOD, SLOW)).select("slow"));
    }

    @Test
    void highestPriorityAvailableIsChosen() {
        assertSame(GOOD, BackendRegistry.of(List.of(SLOW, FAST, GOOD)).select(null));
    }

    @Test
    void priorityTieIsBrokenByName() {
        var a = new FakeProvider("alpha", 5, Availability.yes());
        var b = new FakeProvider("beta", 5, Availability.yes());
        assertSame(a, BackendRegistry.of(List.of(b, a)).select(null));
    }

    @Test
    void explicitUnavailableBackendFailsWithItsCauseAndFix() {
        var e = assertThrows(BackendUnavailableException.class, () -> BackendRegistry.of(List.of(FAST, GOOD))
                .select("fast"));
        assertTrue(e.getMessage().contains("no fast NIC"), e.getMessage());
        assertTrue(e.getMessage().contains("install the fast driver"), e.getMessage());
        assertEquals(1, e.reports().size());
    }

    @Test
    void unknownNameListsTheKnownOnes() {
        var e = assertThrows(IllegalArgumentException.class, () -> BackendRegistry.of(List.of(FAST, GOOD))
                .select("nope"));
        assertTrue(e.getMessage().contains("unknown backend 'nope'"), e.getMessage());
        assertTrue(e.getMessage().contains("fast, good"), e.getMessage());
    }

    @Test
    void noneAvailableGivesAReportPerProvider() {
        var other = new FakeProvider("other", 1, Availability.no("no device", "plug one in"));
        var e = assertThrows(BackendUnavailableException.class, () -> BackendRegistry.of(List.of(FAST, other))
                .select(null));
        assertEquals(
                List.of("fast", "other"),
                e.reports().stream().map(BackendReport::name).toList());
        assertTrue(e.getMessage().contains("no device") && e.getMessage().contains("no fast NIC"), e.getMessage());
    }

    @Test
    void zeroProvidersSaysWhatToAdd() {
        var empty = BackendRegistry.of(List.of());
        var e = assertThrows(BackendUnavailableException.class, () -> empty.select(null));
        assertTrue(e.getMessage().contains("no unicomm backend found"), e.getMessage());
        assertTrue(e.getMessage().contains("backend-shm"), e.getMessage());
        var named = assertThrows(IllegalArgumentException.class, () -> empty.select("shm"));
        assertTrue(named.getMessage().contains("(none"), named.getMessage());
    }

    @Test
    void aThrowingProbeIsReportedNotPropagated() {
        var broken = new CommBackendProvider() {
            @Override
            public String name() {
                return "broken";
            }

            @Override
            public int priority() {
                return 1000;
            }

            @Override
            public Set<Capability> capabilities() {
                return Set.of();
            }

            @Override
            public Availability availability() {
                throw new IllegalStateException("probe bug");
            }

            @Override
            public BackendCommunicator open(BackendContext c) {
                throw new AssertionError();
            }
        };
        BackendReport r = BackendRegistry.report(broken);
        assertFalse(r.available());
        assertTrue(r.cause().contains("probe bug"), r.cause());
        assertSame(GOOD, BackendRegistry.of(List.of(broken, GOOD)).select(null));
    }

    @Test
    void duplicateNamesAreRejected() {
        var twin = new CommBackendProvider() {
            @Override
            public String name() {
                return "good";
            }

            @Override
            public int priority() {
                return 1;
            }

            @Override
            public Set<Capability> capabilities() {
                return Set.of();
            }

            @Override
            public Availability availability() {
                return Availability.yes();
            }

            @Override
            public BackendCommunicator open(BackendContext c) {
                throw new AssertionError();
            }
        };
        var e = assertThrows(IllegalStateException.class, () -> BackendRegistry.of(List.of(GOOD, twin)));
        assertTrue(e.getMessage().contains("'good'"), e.getMessage());
    }

    @Test
    void reportsAreOrderedByPriority() {
        assertEquals(
                List.of("fast", "good", "slow"),
                BackendRegistry.of(List.of(SLOW, GOOD, FAST)).reports().stream()
                        .map(BackendReport::name)
                        .toList());
    }

    @Test
    void unavailableMustSayWhy() {
        assertThrows(IllegalArgumentException.class, () -> Availability.no(" ", "fix"));
    }
}
