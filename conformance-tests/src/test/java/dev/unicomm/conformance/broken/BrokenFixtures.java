package dev.unicomm.conformance.broken;

import dev.unicomm.conformance.AtomicsSuite;
import dev.unicomm.conformance.KitPlug;
import dev.unicomm.conformance.RmaSuite;
import java.time.Duration;

/** Kit suites pointed at the broken decorators; run by {@link BrokenBackendsTest}, not on their own. */
final class BrokenFixtures {
    private BrokenFixtures() {}

    static final Duration SHORT = Duration.ofSeconds(5);

    /** Each fixture's plug: its backend, 2 ranks, {@link #SHORT} waits. */
    private static KitPlug fixturePlug(String backend) {
        return KitPlug.backend(backend).ranks(2).timeout(SHORT);
    }

    public static class DropLastByteRma extends RmaSuite {
        static final KitPlug PLUG = fixturePlug(DropLastByteProvider.NAME);
    }

    public static class UnorderedFenceRma extends RmaSuite {
        static final KitPlug PLUG = fixturePlug(UnorderedFenceProvider.NAME);
    }

    public static class LostUpdateAtomics extends AtomicsSuite {
        static final KitPlug PLUG = fixturePlug(LostUpdateAtomicsProvider.NAME);
    }

    public static class QuietOnlyOrdersRma extends RmaSuite {
        static final KitPlug PLUG = fixturePlug(QuietOnlyOrdersProvider.NAME);
    }

    public static class BarrierSkipsRma extends RmaSuite {
        static final KitPlug PLUG = fixturePlug(BarrierSkipsRmaProvider.NAME);
    }

    /** The same suite on the real backend with the same settings, for timing comparisons. */
    public static class PlainShmRma extends RmaSuite {
        static final KitPlug PLUG = fixturePlug("shm");
    }

    public static class NoAtomicsMoe extends dev.unicomm.conformance.MoeSuite {
        static final KitPlug PLUG = fixturePlug(NoAtomicsProvider.NAME);
    }

    public static class SwappedStripesRma extends RmaSuite {
        static final KitPlug PLUG = fixturePlug(SwappedStripesProvider.NAME);
    }
}
