package dev.unicomm.backend.ascend.internal;

import dev.unicomm.api.Memory;
import dev.unicomm.api.MemoryKind;
import java.lang.foreign.MemorySegment;

/**
 * A local operand of RMA or a copy, resolved: either memory an Ascend engine can address directly
 * (NPU memory, or any symmetric buffer) or host memory that has to go through the staging buffer.
 *
 * @param address the first byte's address (device or host); 0 for a heap segment
 * @param engine  whether Ascend SHMEM / ACL may be handed {@code address} as device memory
 * @param host    the host slice when not {@code engine}, else {@code null}
 */
record Operand(long address, boolean engine, MemorySegment host) {

    /** {@code bytes} of {@code m} from {@code offset} (range already checked by the caller). */
    static Operand of(Memory m, long offset, long bytes, MemoryKind device) {
        if (m instanceof AscendBuffer b) return new Operand(b.ptr + offset, true, null);
        if (m.kind().equals(device)) return new Operand(m.address() + offset, true, null);
        if (!m.kind().isHost())
            throw new IllegalArgumentException(m.kind() + " memory cannot be used by the ascend backend on " + device);
        MemorySegment s = m.segment().asSlice(offset, bytes);
        return new Operand(s.isNative() ? s.address() : 0, false, s);
    }
}
