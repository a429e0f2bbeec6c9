package dev.unicomm.collectives.moe;

import dev.unicomm.api.Capability;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.ReduceOp;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.UnsupportedCapabilityException;
import dev.unicomm.collectives.MoeAlgorithm;
import dev.unicomm.spi.MoeProvider;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The portable MoE: works on every backend with RMA, signals and atomics over a host heap; reads
 * peers directly where the backend maps their memory ({@link Capability#DIRECT_PEER_ACCESS}).
 * Its footprint is exactly {@link MoeConfig#sizeHint(int)} bytes of symmetric heap, plus the two-level
 * algorithm's staging area where a normal buffer runs it ({@link MoeAlgorithm}: across hosts).
 */
public final class PortableMoeProvider implements MoeProvider {

    @Override
    public MoeBuffer open(Communicator comm, MoeConfig config) {
        for (Capability c : new Capability[] {Capability.RMA, Capability.SIGNALS, Capability.ATOMICS}) {
            if (!comm.has(c))
                throw new UnsupportedCapabilityException(
                        comm.backend().name(), c, "portable MoE needs RMA, SIGNALS and ATOMICS");
        }
        if (comm.heap().kind() != MemoryKind.HOST)
            throw new UnsupportedCapabilityException(
                    comm.backend().name(),
                    Capability.NATIVE_MOE,
                    "portable MoE runs on host heaps; this backend's heap is "
                            + comm.heap().kind() + " and it has no native MoE");
        if (config.mode() != MoeConfig.Mode.NORMAL) return new LowLatencyMoe(comm, config); // direct, as DeepEP's
        return agreed(comm) == MoeAlgorithm.HIERARCHICAL
                ? new HierarchicalMoe(comm, config)
                : new NormalMoe(comm, config);
    }

    /**
     * The algorithm every rank chose. The two allocate different symmetric memory, so ranks that differ
     * (or a rank with a bad setting) must fail together here, in one line, not hang in the allocation.
     * On one host every choice is flat and nothing needs agreeing.
     */
    static MoeAlgorithm agreed(Communicator comm) {
        if (comm.topology().singleHost()) return MoeAlgorithm.chosen(comm);
        MoeAlgorithm mine = null;
        IllegalArgumentException bad = null;
        try {
            mine = MoeAlgorithm.chosen(comm);
        } catch (IllegalArgumentException e) {
            bad = e;
        }
        return agreed(comm, mine, bad);
    }

    /** Agreement on this rank's choice {@code mine} (null with {@code bad}: its setting was invalid); collective over the world. */
    static MoeAlgorithm agreed(Communicator comm, MoeAlgorithm mine, IllegalArgumentException bad) {
        long code = mine == null ? 2 : mine.ordinal();
        long lo, hi;
        try (SymmetricBuffer b = comm.heap().allocate(16)) {
            MemorySegment s = b.segment();
            s.set(ValueLayout.JAVA_LONG, 0, code);
            s.set(ValueLayout.JAVA_LONG, 8, -code);
            comm.collectives().allreduce(comm.world(), b, b, 2, DType.INT64, ReduceOp.MAX);
            hi = s.get(ValueLayout.JAVA_LONG, 0);
            lo = -s.get(ValueLayout.JAVA_LONG, 8);
        }
        if (bad != null) throw bad;
        if (lo != hi)
            throw new IllegalArgumentException(
                    hi == 2
                            ? "another rank's " + MoeAlgorithm.PROPERTY
                                    + " (UNICOMM_MOE_ALGORITHM) is not flat, hierarchical or auto"
                            : "ranks chose different normal-mode MoE algorithms (flat and hierarchical): set "
                                    + MoeAlgorithm.PROPERTY
                                    + " (UNICOMM_MOE_ALGORITHM) to the same value on every rank");
        return mine;
    }
}
