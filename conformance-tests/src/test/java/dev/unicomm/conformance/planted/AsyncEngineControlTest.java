package dev.unicomm.conformance.planted;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.unicomm.conformance.KitReport;
import dev.unicomm.conformance.KitRunner;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The control for {@link PlantedFaultsTest}: the same slow put engine without a fault (delivering at
 * completion points and, as real engines do, in the background) passes every rule of the suites the
 * planted faults are run against, so a failure there is the fault's, not the engine's or a rule's.
 */
class AsyncEngineControlTest {

    static void assertAllPass(Class<?> fixture) {
        KitReport r = KitRunner.run(List.of(fixture), Map.of(), null, null);
        System.out.println(r.table());
        assertEquals(0, r.count(KitReport.Result.FAILED), r.table());
    }

    @Test void correctAsyncEnginePassesRma() { assertAllPass(PlantedFixtures.AsyncCorrectRma.class); }

    @Test void correctAsyncEnginePassesTeams() { assertAllPass(PlantedFixtures.AsyncCorrectTeams.class); }

    @Test void correctAsyncEnginePassesAtomics() { assertAllPass(PlantedFixtures.AsyncCorrectAtomics.class); }

    @Test void correctAsyncEnginePassesSignals() { assertAllPass(PlantedFixtures.AsyncCorrectSignal.class); }

    @Test void correctAsyncEnginePassesHeap() { assertAllPass(PlantedFixtures.AsyncCorrectHeap.class); }
}
