package dev.unicomm.backend.ascend.internal;

import dev.unicomm.api.DeviceBuffer;
import dev.unicomm.api.MemoryKind;
import java.lang.foreign.MemorySegment;

/** NPU memory from {@code aclrtMalloc}; {@link #close()} is {@code aclrtFree}. */
final class AclDeviceBuffer implements DeviceBuffer {
    private final AscendCommunicator comm;
    private final long ptr;
    private final long bytes;
    private final MemoryKind kind;
    private volatile boolean open = true;

    AclDeviceBuffer(AscendCommunicator comm, long ptr, long bytes, MemoryKind kind) {
        this.comm = comm;
        this.ptr = ptr;
        this.bytes = bytes;
        this.kind = kind;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public MemoryKind kind() {
        return kind;
    }

    @Override
    public long byteSize() {
        return bytes;
    }

    @Override
    public long address() {
        if (!open) throw new IllegalStateException("device buffer 0x" + Long.toHexString(ptr) + " was already freed");
        return ptr;
    }

    @Override
    public MemorySegment segment() {
        throw new IllegalStateException(kind + " memory at 0x" + Long.toHexString(ptr)
                + " is device memory; the host cannot dereference it (copy it with DeviceRuntime.copy)");
    }

    @Override
    public synchronized void close() {
        if (!open) return;
        open = false;
        comm.forget(this);
        AscendNatives.free(ptr);
    }

    @Override
    public String toString() {
        return "AclDeviceBuffer[" + kind + ", 0x" + Long.toHexString(ptr) + ", " + bytes + " bytes"
                + (open ? "" : ", freed") + "]";
    }
}
