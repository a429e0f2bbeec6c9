package dev.unicomm.api;

import java.lang.foreign.MemorySegment;

/** Device memory described by address, size and device; owns nothing. */
public record DeviceMemory(long address, long byteSize, MemoryKind kind) implements Memory {
    public DeviceMemory {
        if (kind == null || kind.isHost())
            throw new IllegalArgumentException("device memory needs a device kind (CUDA or ASCEND), got " + kind);
        if (address == 0) throw new IllegalArgumentException("device address must not be 0 (null)");
        if (byteSize < 0) throw new IllegalArgumentException("byteSize must be >= 0, got " + byteSize);
    }

    @Override
    public MemorySegment segment() {
        throw new IllegalStateException(kind + " memory at 0x" + Long.toHexString(address)
                + " is device memory; the host cannot dereference it (copy it with DeviceRuntime.copy)");
    }
}
