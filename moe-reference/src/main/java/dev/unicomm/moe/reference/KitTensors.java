package dev.unicomm.moe.reference;

import dev.unicomm.api.Capability;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DType;
import dev.unicomm.api.DeviceBuffer;
import dev.unicomm.api.DeviceRuntime;
import dev.unicomm.api.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the MoE rules put their tensors: host memory, or (for a backend with native MoE on an
 * accelerator) the PE's device memory, as that backend's users would. Activations ({@code x},
 * scales, expert outputs) follow the backend; top-k ids and weights stay in host memory, which
 * every implementation accepts. Results are read back through {@link #host}.
 */
public final class KitTensors implements AutoCloseable {
    private final Arena arena = Arena.ofShared();
    private final DeviceRuntime device;
    private final List<DeviceBuffer> buffers = new ArrayList<>();

    public KitTensors(Communicator comm) {
        this.device = comm.has(Capability.NATIVE_MOE) ? deviceOf(comm) : null;
    }

    private static DeviceRuntime deviceOf(Communicator comm) {
        try {
            return comm.device();
        } catch (RuntimeException e) {
            return null; // a host backend
        }
    }

    /** Whether activations live in device memory. */
    public boolean onDevice() {
        return device != null;
    }

    /** A zeroed host tensor. */
    public Tensor hostTensor(DType dtype, long... shape) {
        return Tensor.allocate(arena, dtype, shape);
    }

    /** A tensor holding {@code data} where activations live (device for device backends). */
    public Tensor activation(byte[] data, DType dtype, long... shape) {
        Tensor h = hostTensor(dtype, shape);
        MemorySegment.copy(data, 0, h.segment(), ValueLayout.JAVA_BYTE, 0, (int) h.byteSize());
        return place(h);
    }

    /** {@code t} itself on host backends; a device copy of it on device backends. */
    public Tensor place(Tensor t) {
        if (device == null) return t;
        DeviceBuffer b = device.allocate(Math.max(16, t.byteSize()));
        buffers.add(b);
        if (t.byteSize() > 0) device.copy(b, 0, t.memory(), 0, t.byteSize());
        return Tensor.of(b, t.dtype(), t.shape());
    }

    /** The tensor's bytes in host memory (a copy when it lives on a device). */
    public MemorySegment host(Tensor t) {
        if (t.memory().kind().isHost()) return t.segment();
        MemorySegment s = arena.allocate(Math.max(1, t.byteSize()), 64).asSlice(0, t.byteSize());
        if (t.byteSize() > 0) deviceOf(t).copy(dev.unicomm.api.Memory.of(s), 0, t.memory(), 0, t.byteSize());
        return s;
    }

    private DeviceRuntime deviceOf(Tensor t) {
        if (device == null)
            throw new IllegalStateException(t + " is device memory but this backend's MoE runs on the host");
        return device;
    }

    @Override
    public void close() {
        for (DeviceBuffer b : buffers) b.close();
        buffers.clear();
        arena.close();
    }
}
