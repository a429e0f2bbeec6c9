package dev.unicomm.backend.nvshmem.internal.moe;

import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.backend.nvshmem.internal.MoeHost;
import dev.unicomm.backend.nvshmem.internal.NvOps;

/** Chooses how a native MoE buffer runs (transport, blocks per kernel) and gives it its symmetric region. */
public final class NvshmemMoeOpener {
    private NvshmemMoeOpener() {}

    /**
     * Opens the CUDA MoE kernels on {@code c}: with loads and stores where every PE's symmetric heap is
     * mapped here (one node), else with NVSHMEM's device puts, gets and signals
     * (unicomm.nvshmem.moe.transport forces either). The symmetric region comes from the
     * communicator's own heap (the validating layer above owns the MoE buffer as a whole and sees it
     * through {@code footprintBytes()}).
     */
    public static MoeBuffer open(MoeHost c, MoeConfig config) {
        int size = c.size();
        long[] peerBases = new long[size];
        boolean mapped = true;
        for (int pe = 0; pe < size; pe++) mapped &= NvOps.peerPtr(c.scratchBase(), pe) != 0;
        boolean viaNvshmem =
                switch (c.settings().moeTransport()) {
                    case "auto" -> !mapped;
                    case "nvshmem" -> true;
                    case "loadstore" -> {
                        if (!mapped)
                            throw new dev.unicomm.api.UnsupportedCapabilityException(
                                    "nvshmem",
                                    dev.unicomm.api.Capability.NATIVE_MOE,
                                    "unicomm.nvshmem.moe.transport=loadstore, but some PE's heap is not mapped here (another node)");
                        yield false;
                    }
                    default ->
                        throw new IllegalArgumentException(
                                "unicomm.nvshmem.moe.transport must be auto, loadstore or nvshmem, got '"
                                        + c.settings().moeTransport() + "'");
                };
        long[] device = NvOps.moeDeviceInfo(); // {SMs, shared memory per block}
        String why = MoeKernelLimits.unsupported(config, size, device[1]);
        if (why != null)
            throw new dev.unicomm.api.UnsupportedCapabilityException(
                    "nvshmem", dev.unicomm.api.Capability.NATIVE_MOE, why);
        boolean ll = config.mode() == MoeConfig.Mode.LOW_LATENCY;
        int sms = ll
                ? MoeKernelLimits.lowLatencyBlocks(c.settings().moeSms(true), c.gpuSharers(), (int) device[0])
                : MoeKernelLimits.blocks(c.settings().moeSms(false), c.gpuSharers(), (int) device[0]);
        SymmetricBuffer sym = c.heap().allocate(MoeSymLayout.of(config, size).total(), 256);
        for (int pe = 0; pe < size; pe++) peerBases[pe] = NvOps.peerPtr(sym.address(), pe);
        try {
            return new NvshmemMoe(c, config, sym, peerBases, sms, viaNvshmem);
        } catch (RuntimeException e) {
            sym.close();
            throw e;
        }
    }
}
