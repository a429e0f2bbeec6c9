package dev.unicomm.backend.nvshmem.internal;

import dev.unicomm.api.DeviceBuffer;
import dev.unicomm.api.MemoryKind;
import java.lang.foreign.MemorySegment;

/** Plain (non-symmetric) GPU memory from cudaMalloc; freed by {@link #close()}. */
final class NvshmemDeviceBuffer implements DeviceBuffer {
    private final NvshmemCommunicator c;
    private final long address, bytes;
    private volatile boolean open = true;

    NvshmemDeviceBuffer(NvshmemCommunicator c, long address, long bytes) {
        this.c = c;
        this.address = address;
        this.bytes = bytes;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public MemoryKind kind() {
        return c.kind;
    }

    @Override
    public long address() {
        if (!open)
            throw new IllegalStateException("device buffer 0x" + Long.toHexString(address) + " was already freed");
        return address;
    }

    @Override
    public long byteSize() {
        return bytes;
    }

    @Override
    public MemorySegment segment() {
        throw new IllegalStateException(c.kind + " memory at 0x" + Long.toHexString(address)
                + " is device memory; the host cannot dereference it (copy it with DeviceRuntime.copy)");
    }

    @Override
    public void close() {
        synchronized (this) {
            if (!open) return;
            open = false;
        }
        synchronized (c.deviceBuffers) {
            c.deviceBuffers.remove(this);
        }
        NvOps.devFree(address);
    }

    @Override
    public String toString() {
        return "DeviceBuffer[0x" + Long.toHexString(address) + ", " + bytes + " bytes, " + c.kind
                + (open ? "" : ", freed") + "]";
    }
}
