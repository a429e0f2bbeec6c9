package dev.unicomm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.conformance.configured.FaultInjectionRules;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The fault-injection suite is run by name only, never in the default run. */
class ConformanceSelectTest {
    @Test
    void faultInjectionIsSelectableByNameButNotByDefault() {
        assertEquals(List.of(FaultInjectionRules.class), ConformanceCommand.select(List.of("FaultInjection")));
        assertFalse(ConformanceCommand.select(List.of()).contains(FaultInjectionRules.class));
        var e = assertThrows(IllegalArgumentException.class, () -> ConformanceCommand.select(List.of("nope")));
        assertTrue(e.getMessage().contains("FaultInjection"), e.getMessage());
    }

    /** The CLI's suites are the kit's discovered ones: Collectives and MoE included, each selectable by name. */
    @Test
    void defaultRunIsTheKitsDiscoveredSuites() {
        assertEquals(dev.unicomm.conformance.KitSuites.defaultRun(), ConformanceCommand.select(List.of()));
        assertEquals(
                List.of(dev.unicomm.conformance.configured.CollectivesRules.class),
                ConformanceCommand.select(List.of("Collectives")));
        assertEquals(
                List.of(dev.unicomm.conformance.configured.MoeRules.class), ConformanceCommand.select(List.of("moe")));
        assertEquals(
                List.of(dev.unicomm.conformance.configured.SignalRules.class),
                ConformanceCommand.select(List.of("Signals")));
    }

    @Test
    void skippedSuitesLeaveTheRun() {
        List<Class<?>> all = ConformanceCommand.select(List.of());
        List<Class<?>> rest = ConformanceCommand.select(List.of(), List.of("Faults"));
        assertFalse(rest.contains(dev.unicomm.conformance.configured.FaultRules.class));
        assertEquals(all.size() - 1, rest.size());
        assertTrue(all.containsAll(rest));
        var e = assertThrows(
                IllegalArgumentException.class, () -> ConformanceCommand.select(List.of("Moe"), List.of("Moe")));
        assertTrue(e.getMessage().contains("leaves no suite"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ConformanceCommand.select(List.of(), List.of("nope")));
    }
}
