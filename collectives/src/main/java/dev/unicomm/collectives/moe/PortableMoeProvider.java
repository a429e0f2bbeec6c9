package dev.unicomm.collectives.moe;

import dev.unicomm.api.Capability;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.UnsupportedCapabilityException;
import dev.unicomm.collectives.MoeAlgorithm;
import dev.unicomm.spi.MoeProvider;

/**
 * The portable MoE: works on every backend with RMA, signals and atomics over a host heap; reads
 * peers directly where the backend maps their memory ({@link Capability#DIRECT_PEER_ACCESS}).
 * Its footprint is exactly {@link MoeConfig#sizeHint(int)} bytes of symmetric heap, plus the two-level
 * algorithm's staging area where a normal buffer runs it ({@link MoeAlgorithm}: across hosts).
 */
public final class PortableMoeProvider implements MoeProvider {

    @Override public MoeBuffer open(Communicator comm, MoeConfig config) {
        for (Capability c : new Capability[] {Capability.RMA, Capability.SIGNALS, Capability.ATOMICS}) {
            if (!comm.has(c))
                throw new UnsupportedCapabilityException(comm.backend().name(), c, "portable MoE needs RMA, SIGNALS and ATOMICS");
        }
        if (comm.heap().kind() != MemoryKind.HOST)
            throw new UnsupportedCapabilityException(comm.backend().name(), Capability.NATIVE_MOE,
                    "portable MoE runs on host heaps; this backend's heap is " + comm.heap().kind() + " and it has no native MoE");
        if (config.mode() != MoeConfig.Mode.NORMAL) return new LowLatencyMoe(comm, config); // direct, as DeepEP's
        return MoeAlgorithm.chosen(comm) == MoeAlgorithm.HIERARCHICAL ? new HierarchicalMoe(comm, config) : new NormalMoe(comm, config);
    }
}
