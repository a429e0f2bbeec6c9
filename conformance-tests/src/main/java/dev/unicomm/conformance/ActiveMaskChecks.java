package dev.unicomm.conformance;

import dev.unicomm.api.Communicator;
import dev.unicomm.api.ExpertMask;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.moe.reference.MoeConformance;
import dev.unicomm.moe.reference.MoeScenario;
import dev.unicomm.moe.reference.MoeScenario.Routing;
import java.util.function.BiFunction;
import java.util.stream.IntStream;

/**
 * The kit's checks of an active-rank mask set on an open buffer ({@code MoeBuffer.setActiveRanks},
 * {@code Capability.MOE_ACTIVE_MASK}; docs/moe.md "Elastic GPU"), one collective step each. Who calls what:
 * every rank opens the buffer of the whole job (collective) and sees every rank active; after a barrier
 * the last rank ({@link #leaving}) leaves: it calls nothing more on the buffer, while the others (the
 * survivors) set the mask without it and run their check; a final barrier of every rank ends the step
 * (the communicator has no mask: its barrier includes the inactive rank). The inactive rank never calls
 * {@code setActiveRanks} (only active ranks may) and leaves its buffer open: a buffer's symmetric block is
 * freed collectively over every PE, which an inactive rank does not join, so the survivors' close frees
 * their local memory only and the block goes with the job.
 */
public final class ActiveMaskChecks {
    private final Communicator comm;
    private final BiFunction<Communicator, MoeConfig, MoeBuffer> open;
    private final Runnable whileInactive;

    /**
     * @param open          opens a buffer of the whole job (the kit: {@code comm.moe(config)})
     * @param whileInactive what the leaving rank does between the barriers: nothing on the buffer in the kit's
     *                      rules; the kit's own tests use it to drive a test double
     */
    public ActiveMaskChecks(
            Communicator comm, BiFunction<Communicator, MoeConfig, MoeBuffer> open, Runnable whileInactive) {
        this.comm = comm;
        this.open = open;
        this.whileInactive = whileInactive;
    }

    /** The rank that leaves in these checks: the last one. */
    public static int leaving(int ranks) {
        return ranks - 1;
    }

    /** Every rank but {@link #leaving}. */
    public static ExpertMask withoutLast(int ranks) {
        return new ExpertMask(ranks, IntStream.range(0, ranks - 1).toArray());
    }

    /** Normal BF16 dispatch/combine (layout, cached-handle dispatch too) after the mask, two routings, against the reference with the same drops. */
    public void normal() {
        int n = comm.size();
        MoeConfig cfg = new MoeConfig(MoeConfig.Mode.NORMAL, 4 * n, 96, 24, 4, false);
        step(cfg, (moe, mask) -> {
            MoeConformance.onActiveRanks(comm, scenario(cfg, Routing.UNIFORM, 41, false), mask)
                    .checkNormal(moe, false);
            MoeConformance.onActiveRanks(comm, scenario(cfg, Routing.UNUSED_SLOTS, 42, true), mask)
                    .checkNormal(moe, false);
        });
    }

    /** Low-latency dispatch/combine (BF16, then FP8) after the mask, against the reference with the same drops. */
    public void lowLatency() {
        int n = comm.size();
        MoeConfig cfg = new MoeConfig(MoeConfig.Mode.LOW_LATENCY, 4 * n, 256, 6, 3, true);
        step(cfg, (moe, mask) -> {
            MoeConformance.onActiveRanks(comm, scenario(cfg, Routing.UNIFORM, 43, true), mask)
                    .checkLowLatency(moe, false);
            MoeConformance.onActiveRanks(comm, scenario(cfg, Routing.UNUSED_SLOTS, 44, false), mask)
                    .checkLowLatency(moe, true);
        });
    }

    /**
     * Bad masks, each refused with one clear line and the active set unchanged: on every rank before anyone
     * leaves, a mask of the wrong job size and one that leaves this rank inactive; on the survivors after the
     * mask, one that re-activates the rank that left. Then the buffer still works (normal BF16, verified).
     */
    public void badInput() {
        int n = comm.size(), me = comm.rank();
        MoeConfig cfg = new MoeConfig(MoeConfig.Mode.NORMAL, 4 * n, 96, 24, 4, false);
        MoeBuffer moe = open.apply(comm, cfg);
        ExpertMask all = ExpertMask.all(n);
        expectActive(moe, all, "a new buffer");
        refused(moe, ExpertMask.all(n + 1), "is for a job of " + (n + 1) + " ranks", all);
        int[] others = IntStream.range(0, n).filter(r -> r != me).toArray();
        refused(moe, new ExpertMask(n, others), "leaves this rank (" + me + ") inactive", all);
        comm.barrier();
        ExpertMask without = withoutLast(n);
        if (me == leaving(n)) {
            whileInactive.run();
        } else {
            moe.setActiveRanks(without);
            expectActive(moe, without, "after setActiveRanks");
            refused(moe, all, "re-activates rank " + leaving(n), without);
            MoeConformance.onActiveRanks(comm, scenario(cfg, Routing.UNIFORM, 45, false), without)
                    .checkNormal(moe, false);
            moe.close();
        }
        comm.barrier();
    }

    /** Opens, sees every rank active, lets the last rank leave and runs {@code survivors} on the others (see the class comment). */
    private void step(MoeConfig cfg, java.util.function.BiConsumer<MoeBuffer, ExpertMask> survivors) {
        int n = comm.size();
        MoeBuffer moe = open.apply(comm, cfg);
        expectActive(moe, ExpertMask.all(n), "a new buffer");
        comm.barrier();
        ExpertMask without = withoutLast(n);
        if (comm.rank() == leaving(n)) {
            whileInactive.run(); // no call on the buffer, and it stays open (see the class comment)
        } else {
            moe.setActiveRanks(without);
            expectActive(moe, without, "after setActiveRanks");
            survivors.accept(moe, without);
            moe.close(); // with a rank inactive: this rank's local memory only
        }
        comm.barrier();
    }

    private MoeScenario scenario(MoeConfig cfg, Routing routing, long seed, boolean emptyRank) {
        int n = comm.size();
        return new MoeScenario(
                "active-mask-" + routing.name().toLowerCase(),
                cfg,
                n,
                seed,
                routing,
                MoeScenario.unevenTokens(n, cfg.maxTokensPerRank(), emptyRank));
    }

    private void expectActive(MoeBuffer moe, ExpertMask expected, String when) {
        ExpertMask got = moe.activeRanks();
        if (!expected.equals(got))
            throw new AssertionError(
                    "rank " + comm.rank() + ": activeRanks() " + when + " is " + got + ", expected " + expected);
    }

    /** {@code mask} must be refused with an {@link IllegalArgumentException} naming {@code fragment} on one line, leaving {@code before}. */
    private void refused(MoeBuffer moe, ExpertMask mask, String fragment, ExpertMask before) {
        try {
            moe.setActiveRanks(mask);
        } catch (IllegalArgumentException e) {
            String m = e.getMessage();
            if (m == null || !m.contains(fragment) || m.contains("\n"))
                throw new AssertionError(
                        "rank " + comm.rank() + ": setActiveRanks(" + mask + ") was refused with '" + m
                                + "', which should be one line naming '" + fragment + "'",
                        e);
            expectActive(moe, before, "after the refused setActiveRanks(" + mask + ")");
            return;
        }
        throw new AssertionError("rank " + comm.rank() + ": setActiveRanks(" + mask
                + ") was accepted; it should be refused ('" + fragment + "')");
    }
}
