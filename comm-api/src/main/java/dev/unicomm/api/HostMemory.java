package dev.unicomm.api;

import java.lang.foreign.MemorySegment;
import java.util.Objects;

/** Host memory described by a {@link MemorySegment}; heap segments are allowed. */
public record HostMemory(MemorySegment segment) implements Memory {
    public HostMemory {
        Objects.requireNonNull(segment, "segment");
    }

    @Override
    public MemoryKind kind() {
        return MemoryKind.HOST;
    }

    /** The native address, or 0 for a heap segment. */
    @Override
    public long address() {
        return segment.isNative() ? segment.address() : 0L;
    }

    @Override
    public long byteSize() {
        return segment.byteSize();
    }
}
