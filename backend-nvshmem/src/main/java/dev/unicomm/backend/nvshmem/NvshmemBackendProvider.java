package dev.unicomm.backend.nvshmem;

import dev.unicomm.api.Capability;
import dev.unicomm.backend.nvshmem.internal.NvLibrary;
import dev.unicomm.backend.nvshmem.internal.NvshmemCommunicator;
import dev.unicomm.backend.nvshmem.internal.moe.NvshmemMoeOpener;
import dev.unicomm.spi.Availability;
import dev.unicomm.spi.BackendCommunicator;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.BackendPriority;
import dev.unicomm.spi.CommBackendProvider;
import java.util.EnumSet;
import java.util.Set;

/**
 * The NVSHMEM backend: a symmetric heap in GPU memory, host-issued and stream-ordered RMA,
 * signals, 64-bit atomics, teams and NVSHMEM's team collectives. One PE per process; the PE's
 * GPU is {@code unicomm.nvshmem.device} if set, else local rank modulo the visible devices (several
 * PEs may share one GPU; run them under MPS). {@code NVSHMEM_DISABLE_NVLS=1} is set unless the
 * environment already says otherwise.
 *
 * <p>Settings ({@code -Dunicomm.X} or {@code UNICOMM_X}): {@code nvshmem.home} (NVSHMEM install),
 * {@code nvshmem.ops} (ops library path), {@code nvshmem.device}, {@code nvshmem.finalize},
 * {@code nvshmem.bounceBytes}, {@code nvshmem.scratchBytes}, {@code nvshmem.soloPoolBytes} (symmetric memory
 * reserved for one-PE communicators opened inside a process of a larger job), {@code nvshmem.moe.sms} (blocks
 * per normal-mode MoE kernel: DeepEP's {@code set_num_sms}; default this PE's share of the GPU's SMs less two),
 * {@code nvshmem.moe.ll.sms} (blocks per low-latency kernel; default the whole GPU when the PE has it alone),
 * {@code nvshmem.moe.transport} ({@code auto}, {@code loadstore}, {@code nvshmem}), {@code nvshmem.moe.profile}
 * ({@code false}, {@code true}, {@code aligned}).
 */
public final class NvshmemBackendProvider implements CommBackendProvider {
    private static final Set<Capability> CAPABILITIES = EnumSet.of(
            Capability.RMA,
            Capability.NONBLOCKING_RMA,
            Capability.ATOMICS,
            Capability.SIGNALS,
            Capability.TEAMS,
            Capability.STREAMS,
            Capability.DEVICE_MEMORY_CUDA,
            Capability.NATIVE_COLLECTIVES,
            Capability.NATIVE_MOE,
            Capability.MULTI_PROCESS,
            Capability.MULTI_HOST,
            Capability.MOE_ACTIVE_MASK);

    /** Cheap: natives load on {@link #availability()} or {@link #open}. */
    public NvshmemBackendProvider() {}

    @Override
    public String name() {
        return "nvshmem";
    }

    /** Above the host backends: when a GPU and NVSHMEM are here, they are what the user wants. */
    @Override
    public int priority() {
        return BackendPriority.DEVICE;
    }

    @Override
    public Set<Capability> capabilities() {
        return Set.copyOf(CAPABILITIES);
    }

    @Override
    public Availability availability() {
        return NvLibrary.availability();
    }

    @Override
    public BackendCommunicator open(BackendContext context) {
        availability().ensureAvailable(this);
        return NvshmemCommunicator.open(context, NvLibrary.deviceCount(), NvshmemMoeOpener::open);
    }
}
