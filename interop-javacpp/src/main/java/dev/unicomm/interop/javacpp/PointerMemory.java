package dev.unicomm.interop.javacpp;

import dev.unicomm.api.Memory;
import dev.unicomm.api.MemoryKind;
import java.lang.foreign.MemorySegment;
import org.bytedeco.javacpp.Pointer;

/** Host memory viewed through a JavaCPP pointer; holding it keeps the pointer (and its memory) alive. */
public record PointerMemory(Pointer pointer, MemorySegment segment) implements Memory {
    @Override
    public MemoryKind kind() {
        return MemoryKind.HOST;
    }

    @Override
    public long address() {
        return segment.address();
    }

    @Override
    public long byteSize() {
        return segment.byteSize();
    }
}
