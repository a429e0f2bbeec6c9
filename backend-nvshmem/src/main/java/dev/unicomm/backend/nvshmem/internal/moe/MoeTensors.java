package dev.unicomm.backend.nvshmem.internal.moe;

import dev.unicomm.api.DType;
import dev.unicomm.api.Memory;
import dev.unicomm.api.Tensor;
import dev.unicomm.backend.nvshmem.internal.MoeHost;
import dev.unicomm.backend.nvshmem.internal.NvOps;
import java.lang.foreign.MemorySegment;

/**
 * How a MoE buffer's tensors reach the kernels: device addresses checked for this PE's GPU (and
 * alignment where the kernels load vectors), host tensors staged on the MoE stream, and result
 * views of GPU memory.
 */
final class MoeTensors {
    private final MoeHost c;
    /** The MoE stream: a staged copy runs before the kernel queued after it. */
    private final long stream;

    MoeTensors(MoeHost c, long stream) {
        this.c = c;
        this.stream = stream;
    }

    /** Device address of a GPU tensor of this PE (stream-ordered calls take no host memory: a copy would not be capturable). */
    long onDevice(String what, Tensor t) {
        if (t == null) throw new IllegalArgumentException(what + " must not be null");
        if (t.memory().kind().isHost())
            throw new IllegalArgumentException(
                    what
                            + ": stream-ordered operations need device memory (a host copy could not be captured in a CUDA graph)");
        return c.deviceAddress(what, t.memory(), 0);
    }

    /** Device address of a GPU tensor of this PE, which must be 16-byte aligned (vector loads). */
    long aligned(String what, Tensor t) {
        long a = c.deviceAddress(what, t.memory(), 0);
        if ((a & 15) != 0)
            throw new IllegalArgumentException(
                    what + " must start 16-byte aligned for the MoE kernels, got address 0x" + Long.toHexString(a));
        return a;
    }

    /** The tensor's device address; host tensors (native memory) are copied to {@code stage} first. 0 for null. */
    long staged(String what, Tensor t, long stage) {
        if (t == null) return 0;
        if (!t.memory().kind().isHost()) return c.deviceAddress(what, t.memory(), 0);
        MemorySegment s = t.segment();
        if (!s.isNative())
            throw new IllegalArgumentException(
                    what + " is a Java heap segment; pass native (off-heap) host memory or GPU memory");
        NvOps.copyAsync(stage, s.address(), t.byteSize(), stream);
        return stage;
    }

    /** A view of this PE's GPU memory at {@code address} as a tensor (results of the MoE operations). */
    Tensor device(long address, DType dtype, long... shape) {
        long n = dtype.byteSize();
        for (long s : shape) n *= s;
        return Tensor.of(Memory.device(address, n, c.kind()), dtype, shape);
    }
}
