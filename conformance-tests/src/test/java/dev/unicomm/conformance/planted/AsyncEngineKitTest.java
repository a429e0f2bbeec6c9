package dev.unicomm.conformance.planted;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.unicomm.conformance.AtomicsSuite;
import dev.unicomm.conformance.BadInputSuite;
import dev.unicomm.conformance.FaultSuite;
import dev.unicomm.conformance.HeapSuite;
import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.KitSuites;
import dev.unicomm.conformance.LifecycleSuite;
import dev.unicomm.conformance.MoeSuite;
import dev.unicomm.conformance.RmaSuite;
import dev.unicomm.conformance.SignalSuite;
import dev.unicomm.conformance.TeamsSuite;
import dev.unicomm.conformance.collectives.CollectivesSuite;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * The asynchronous worked example: a backend built from the SPI's forwarding bases around an asynchronous
 * put engine ({@link AsyncCorrectProvider}, backend {@code shm-async}), run through every suite of the
 * default run the way a vendor's kit test does (one plug, one empty nested class per suite, the coverage check,
 * the entry check that rules ran).
 */
class AsyncEngineKitTest {
    static final KitPlug PLUG = KitPlug.backend(AsyncCorrectProvider.NAME);

    @AfterAll
    static void theKitRan() {
        KitSuites.assertRulesRan(AsyncEngineKitTest.class);
    }

    @Test
    void coversEverySuite() {
        assertEquals(List.of(), KitSuites.missingFrom(AsyncEngineKitTest.class));
    }

    @Nested
    class Lifecycle extends LifecycleSuite {}

    @Nested
    class Heap extends HeapSuite {}

    @Nested
    class Rma extends RmaSuite {}

    @Nested
    class Signals extends SignalSuite {}

    @Nested
    class Atomics extends AtomicsSuite {}

    @Nested
    class Teams extends TeamsSuite {}

    @Nested
    class BadInput extends BadInputSuite {}

    @Nested
    class Faults extends FaultSuite {}

    @Nested
    class Collectives extends CollectivesSuite {}

    @Nested
    class Moe extends MoeSuite {}
}
