package dev.unicomm.interop.javacpp;

import dev.unicomm.api.Memory;
import dev.unicomm.api.MemoryKind;
import java.lang.foreign.MemorySegment;
import org.bytedeco.javacpp.Pointer;

/** Device memory behind a JavaCPP pointer; holding it keeps the pointer alive. Not host-dereferenceable. */
public record PointerDeviceMemory(Pointer pointer, Memory memory) implements Memory {
    @Override
    public MemoryKind kind() {
        return memory.kind();
    }

    @Override
    public long address() {
        return memory.address();
    }

    @Override
    public long byteSize() {
        return memory.byteSize();
    }

    @Override
    public MemorySegment segment() {
        return memory.segment();
    }
}
