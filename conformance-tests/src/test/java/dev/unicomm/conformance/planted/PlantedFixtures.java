package dev.unicomm.conformance.planted;

import dev.unicomm.conformance.AtomicsSuite;
import dev.unicomm.conformance.HeapSuite;
import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.RmaSuite;
import dev.unicomm.conformance.SignalSuite;
import dev.unicomm.conformance.TeamsSuite;
import java.time.Duration;

/** Kit suites pointed at the planted-fault backends, 2 ranks, short timeouts; run by {@link PlantedFaultsTest}. */
final class PlantedFixtures {
    private PlantedFixtures() {}

    static final Duration SHORT = Duration.ofSeconds(5);

    /** Each fixture's plug: its backend, 2 ranks, {@link #SHORT} waits. */
    private static KitPlug fixturePlug(String backend) {
        return KitPlug.backend(backend).ranks(2).timeout(SHORT);
    }

    public static class PerThreadQueuesRma extends RmaSuite {
        static final KitPlug PLUG = fixturePlug(PerThreadQueuesProvider.NAME);
    }

    public static class SubTeamBarrierTeams extends TeamsSuite {
        static final KitPlug PLUG = fixturePlug(SubTeamBarrierSkipsRmaProvider.NAME);
    }

    public static class SubTeamBarrierRma extends RmaSuite {
        static final KitPlug PLUG = fixturePlug(SubTeamBarrierSkipsRmaProvider.NAME);
    }

    public static class QuietOrdersGetDrainsRma extends RmaSuite {
        static final KitPlug PLUG = fixturePlug(QuietOrdersGetDrainsProvider.NAME);
    }

    public static class QuietDrainsLastTargetRma extends RmaSuite {
        static final KitPlug PLUG = fixturePlug(QuietDrainsLastTargetProvider.NAME);
    }

    public static class AtomicsOvertakePutsAtomics extends AtomicsSuite {
        static final KitPlug PLUG = fixturePlug(AtomicsOvertakePutsProvider.NAME);
    }

    public static class AtomicsOvertakePutsRma extends RmaSuite {
        static final KitPlug PLUG = fixturePlug(AtomicsOvertakePutsProvider.NAME);
    }

    public static class DeferredAtomicUpdatesAtomics extends AtomicsSuite {
        static final KitPlug PLUG = fixturePlug(DeferredAtomicUpdatesProvider.NAME);
    }

    public static class CachedReadsRma extends RmaSuite {
        static final KitPlug PLUG = fixturePlug(CachedReadsProvider.NAME);
    }

    public static class CachedReadsAtomics extends AtomicsSuite {
        static final KitPlug PLUG = fixturePlug(CachedReadsProvider.NAME);
    }

    public static class SignalCountedAtOriginAtomics extends AtomicsSuite {
        static final KitPlug PLUG = fixturePlug(SignalCountedAtOriginProvider.NAME);
    }

    public static class ReuseBeforeDrainHeap extends HeapSuite {
        static final KitPlug PLUG = fixturePlug(ReuseBeforeDrainProvider.NAME);
    }

    public static class SignalBeforeDataSignal extends SignalSuite {
        static final KitPlug PLUG = fixturePlug(SignalBeforeDataProvider.NAME);
    }
}
