package dev.unicomm.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.junit.jupiter.api.Test;

/** Framework memory in, no copies out: ByteBuffer, MemorySegment and device address adapters. */
class MemoryAdaptersTest {

    @Test
    void directByteBufferIsViewedFromPositionToLimitWithoutACopy() {
        ByteBuffer bb = ByteBuffer.allocateDirect(64).order(ByteOrder.nativeOrder());
        bb.position(8).limit(40);
        Memory m = Memory.of(bb);
        assertEquals(MemoryKind.HOST, m.kind());
        assertEquals(32, m.byteSize());
        assertTrue(m.segment().isNative());
        m.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, 0x1122334455667788L);
        assertEquals(0x1122334455667788L, bb.getLong(8), "a write through unicomm's view lands in the buffer");
        bb.putLong(16, 42L);
        assertEquals(42L, m.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 8), "and the other way round");
        assertEquals(MemorySegment.ofBuffer(bb).address(), m.address());
    }

    @Test
    void heapAndReadOnlyBuffersKeepTheirNature() {
        Memory heap = Memory.of(ByteBuffer.allocate(16));
        assertFalse(heap.segment().isNative());
        assertEquals(0, heap.address(), "heap memory has no native address");
        Memory ro = Memory.of(ByteBuffer.allocateDirect(16).asReadOnlyBuffer());
        assertTrue(ro.segment().isReadOnly());
        assertThrows(IllegalArgumentException.class, () -> ro.segment().set(ValueLayout.JAVA_BYTE, 0, (byte) 1));
        assertThrows(IllegalArgumentException.class, () -> Memory.of((ByteBuffer) null));
    }

    @Test
    void segmentsAreUsedAsGiven() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(128);
            Memory m = Memory.of(seg.asSlice(16, 32));
            assertEquals(seg.address() + 16, m.address());
            assertEquals(32, m.byteSize());
        }
    }

    @Test
    void deviceAddressesAreDescribedNotDereferenced() {
        Memory d = Memory.device(0x7f00_0000_1000L, 4096, MemoryKind.cuda(0));
        assertEquals(0x7f00_0000_1000L, d.address());
        assertEquals(4096, d.byteSize());
        IllegalStateException e = assertThrows(IllegalStateException.class, d::segment);
        assertTrue(e.getMessage().contains("device memory"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Memory.device(0, 16, MemoryKind.cuda(0)));
        assertThrows(IllegalArgumentException.class, () -> Memory.device(0x1000, -1, MemoryKind.cuda(0)));
        assertThrows(IllegalArgumentException.class, () -> Memory.device(0x1000, 16, MemoryKind.HOST));
    }
}
