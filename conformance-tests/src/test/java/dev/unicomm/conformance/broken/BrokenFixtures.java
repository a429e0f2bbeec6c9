package dev.unicomm.conformance.broken;

import dev.unicomm.conformance.AtomicsSuite;
import dev.unicomm.conformance.RmaSuite;
import java.time.Duration;

/** Kit suites pointed at the broken decorators; run by {@link BrokenBackendsTest}, not on their own. */
final class BrokenFixtures {
    private BrokenFixtures() {}

    static final Duration SHORT = Duration.ofSeconds(5);

    public static class DropLastByteRma extends RmaSuite {
        @Override
        protected String backend() {
            return DropLastByteProvider.NAME;
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

    public static class UnorderedFenceRma extends RmaSuite {
        @Override
        protected String backend() {
            return UnorderedFenceProvider.NAME;
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

    public static class LostUpdateAtomics extends AtomicsSuite {
        @Override
        protected String backend() {
            return LostUpdateAtomicsProvider.NAME;
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

    public static class QuietOnlyOrdersRma extends RmaSuite {
        @Override
        protected String backend() {
            return QuietOnlyOrdersProvider.NAME;
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

    public static class BarrierSkipsRma extends RmaSuite {
        @Override
        protected String backend() {
            return BarrierSkipsRmaProvider.NAME;
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

    /** The same suite on the real backend with the same settings, for timing comparisons. */
    public static class PlainShmRma extends RmaSuite {
        @Override
        protected String backend() {
            return "shm";
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

    public static class NoAtomicsMoe extends dev.unicomm.conformance.MoeSuite {
        @Override
        protected String backend() {
            return NoAtomicsProvider.NAME;
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

    public static class SwappedStripesRma extends RmaSuite {
        @Override
        protected String backend() {
            return SwappedStripesProvider.NAME;
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
