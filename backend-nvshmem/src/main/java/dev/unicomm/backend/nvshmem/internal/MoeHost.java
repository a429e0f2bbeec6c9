package dev.unicomm.backend.nvshmem.internal;

import dev.unicomm.api.Memory;
import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.SymmetricHeap;
import java.time.Duration;

/**
 * What the native MoE buffers ({@code internal.moe}) may use of their communicator, and no more:
 * its shape, settings, heap and MoE stream, bounded waits and its health. The communicator
 * implements it; {@code internal.moe} depends on this interface, never on the communicator.
 */
public interface MoeHost {
    int rank();

    int size();

    /** The job's timeout, which bounds every wait. */
    Duration timeout();

    /** The memory kind of this PE's GPU. */
    MemoryKind kind();

    /** The {@code unicomm.nvshmem.*} settings, {@code moe.*} among them. */
    NvshmemSettings settings();

    /** PEs of this process's job that share this GPU (MPS): the MoE kernels split its SMs between them. */
    int gpuSharers();

    /** The communicator's symmetric heap (the MoE region comes from it, collectively). */
    SymmetricHeap heap();

    /** Base address of the communicator's symmetric scratch, whose peer mappings say whether load/store reaches every PE. */
    long scratchBase();

    /**
     * The stream all MoE buffers of this communicator launch on. One stream, because their kernels
     * wait for their peers' blocks: kernels of two buffers running side by side could hold the SMs
     * the other needs. So MoE operations of all buffers run in issue order, as collectives do.
     */
    long moeStream();

    /** The device address of {@code m} at {@code offset}; host memory or another GPU's memory is refused. */
    long deviceAddress(String what, Memory m, long offset);

    /** Waits until {@code stream} is idle, at most the timeout (a dead peer ends the wait early). */
    void await(long stream, String what);

    /** Enqueues a barrier of every PE of the job on {@code stream}. */
    void barrierAll(long stream);

    /** Throws IllegalStateException if the communicator was closed. */
    void ensureOpen();

    /** Throws CommAbortedException if the job was aborted (a peer died). */
    void checkHealthy();

    /** Whether the job was aborted or a wait timed out; never throws. */
    boolean aborted();

    /** Opens native MoE buffers on a host: {@code internal.moe}'s kernels, wired in by the provider. */
    interface Opener {
        MoeBuffer open(MoeHost host, MoeConfig config);
    }
}
