package dev.unicomm.conformance.planted;

import dev.unicomm.conformance.AtomicsSuite;
import dev.unicomm.conformance.HeapSuite;
import dev.unicomm.conformance.RmaSuite;
import dev.unicomm.conformance.SignalSuite;
import dev.unicomm.conformance.TeamsSuite;
import java.time.Duration;

/** Kit suites pointed at the planted-fault backends, 2 ranks, short timeouts; run by {@link PlantedFaultsTest}. */
final class PlantedFixtures {
    private PlantedFixtures() {}

    static final Duration SHORT = Duration.ofSeconds(5);

    public static class PerThreadQueuesRma extends RmaSuite {
        @Override
        protected String backend() {
            return PerThreadQueuesProvider.NAME;
        }

        @Override
        protected int ranks() {
            return 2;
        }

        @Override
        protected Duration timeout() {
            return SHORT;
        }
    }

    public static class SubTeamBarrierTeams extends TeamsSuite {
        @Override
        protected String backend() {
            return SubTeamBarrierSkipsRmaProvider.NAME;
        }

        @Override
        protected int ranks() {
            return 2;
        }

        @Override
        protected Duration timeout() {
            return SHORT;
        }
    }

    public static class SubTeamBarrierRma extends RmaSuite {
        @Override
        protected String backend() {
            return SubTeamBarrierSkipsRmaProvider.NAME;
        }

        @Override
        protected int ranks() {
            return 2;
        }

        @Override
        protected Duration timeout() {
            return SHORT;
        }
    }

    public static class QuietOrdersGetDrainsRma extends RmaSuite {
        @Override
        protected String backend() {
            return QuietOrdersGetDrainsProvider.NAME;
        }

        @Override
        protected int ranks() {
            return 2;
        }

        @Override
        protected Duration timeout() {
            return SHORT;
        }
    }

    public static class QuietDrainsLastTargetRma extends RmaSuite {
        @Override
        protected String backend() {
            return QuietDrainsLastTargetProvider.NAME;
        }

        @Override
        protected int ranks() {
            return 2;
        }

        @Override
        protected Duration timeout() {
            return SHORT;
        }
    }

    public static class AtomicsOvertakePutsAtomics extends AtomicsSuite {
        @Override
        protected String backend() {
            return AtomicsOvertakePutsProvider.NAME;
        }

        @Override
        protected int ranks() {
            return 2;
        }

        @Override
        protected Duration timeout() {
            return SHORT;
        }
    }

    public static class AtomicsOvertakePutsRma extends RmaSuite {
        @Override
        protected String backend() {
            return AtomicsOvertakePutsProvider.NAME;
        }

        @Override
        protected int ranks() {
            return 2;
        }

        @Override
        protected Duration timeout() {
            return SHORT;
        }
    }

    public static class DeferredAtomicUpdatesAtomics extends AtomicsSuite {
        @Override
        protected String backend() {
            return DeferredAtomicUpdatesProvider.NAME;
        }

        @Override
        protected int ranks() {
            return 2;
        }

        @Override
        protected Duration timeout() {
            return SHORT;
        }
    }

    public static class CachedReadsRma extends RmaSuite {
        @Override
        protected String backend() {
            return CachedReadsProvider.NAME;
        }

        @Override
        protected int ranks() {
            return 2;
        }

        @Override
        protected Duration timeout() {
            return SHORT;
        }
    }

    public static class CachedReadsAtomics extends AtomicsSuite {
        @Override
        protected String backend() {
            return CachedReadsProvider.NAME;
        }

        @Override
        protected int ranks() {
            return 2;
        }

        @Override
        protected Duration timeout() {
            return SHORT;
        }
    }

    public static class SignalCountedAtOriginAtomics extends AtomicsSuite {
        @Override
        protected String backend() {
            return SignalCountedAtOriginProvider.NAME;
        }

        @Override
        protected int ranks() {
            return 2;
        }

        @Override
        protected Duration timeout() {
            return SHORT;
        }
    }

    public static class ReuseBeforeDrainHeap extends HeapSuite {
        @Override
        protected String backend() {
            return ReuseBeforeDrainProvider.NAME;
        }

        @Override
        protected int ranks() {
            return 2;
        }

        @Override
        protected Duration timeout() {
            return SHORT;
        }
    }

    public static class SignalBeforeDataSignal extends SignalSuite {
        @Override
        protected String backend() {
            return SignalBeforeDataProvider.NAME;
        }

        @Override
        protected int ranks() {
            return 2;
        }

        @Override
        protected Duration timeout() {
            return SHORT;
        }
    }
}
