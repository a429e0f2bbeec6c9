package dev.unicomm.interop.javacpp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommConfig;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.Memory;
import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.Unicomm;
import java.lang.foreign.ValueLayout;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.bytedeco.javacpp.BytePointer;
import org.bytedeco.javacpp.LongPointer;
import org.bytedeco.javacpp.Pointer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** JavaCPP pointers as unicomm memory: same bytes, no copy, checked extents, and real RMA through them. */
class JavaCppMemoryTest {
    @TempDir
    Path dir;

    @Test
    void viewCoversPositionToLimitAndAliasesThePointer() {
        try (LongPointer p = new LongPointer(16)) {
            p.position(2).limit(10);
            Memory m = JavaCppMemory.of(p);
            assertEquals(MemoryKind.HOST, m.kind());
            assertEquals(8 * 8, m.byteSize());
            assertEquals(p.address() + 16, m.address());
            m.segment().set(ValueLayout.JAVA_LONG, 0, 77L);
            assertEquals(77L, p.get(0), "written through the view, visible at the pointer's position");
            p.put(1, 99L);
            assertEquals(99L, m.segment().get(ValueLayout.JAVA_LONG, 8));
            assertSame(p, ((PointerMemory) m).pointer(), "the memory keeps the pointer reachable");
        }
    }

    @Test
    void badPointersAndLengthsAreRejectedWithTheReason() {
        assertThrows(IllegalArgumentException.class, () -> JavaCppMemory.of(null));
        assertThrows(IllegalArgumentException.class, () -> JavaCppMemory.of(new Pointer()));
        try (BytePointer p = new BytePointer(32)) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JavaCppMemory.of(p, 33));
            assertTrue(e.getMessage().contains("capacity"), e.getMessage());
            assertThrows(IllegalArgumentException.class, () -> JavaCppMemory.of(p, -1));
            assertThrows(IllegalArgumentException.class, () -> JavaCppMemory.device(p, 16, MemoryKind.HOST));
            Memory d = JavaCppMemory.device(p, 16, MemoryKind.cuda(0));
            assertEquals(p.address(), d.address());
            assertThrows(IllegalStateException.class, d::segment);
        }
        assertThrows(IllegalArgumentException.class, () -> JavaCppMemory.stream(null, new Pointer()));
    }

    @Test
    void putAndGetMoveDataBetweenPointersAndTheSymmetricHeap() {
        try (Communicator comm = Unicomm.connect(new CommConfig(
                        "shm",
                        0,
                        1,
                        0,
                        null,
                        0,
                        null,
                        false,
                        Duration.ofSeconds(5),
                        1 << 20,
                        Map.of("unicomm.shm.dir", dir.toString())));
                SymmetricBuffer buf = comm.heap().allocate(256);
                BytePointer src = new BytePointer(128);
                BytePointer dst = new BytePointer(128)) {
            for (int i = 0; i < 128; i++) src.put(i, (byte) (i * 3));
            comm.rma().put(buf, 0, JavaCppMemory.of(src), 0, 128, 0);
            comm.rma().quiet();
            comm.rma().get(JavaCppMemory.of(dst), 0, buf, 0, 128, 0);
            for (int i = 0; i < 128; i++) assertEquals((byte) (i * 3), dst.get(i), "byte " + i);
        }
    }
}
