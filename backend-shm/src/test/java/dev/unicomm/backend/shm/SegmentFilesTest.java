package dev.unicomm.backend.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SegmentFilesTest {
    @TempDir Path dir;

    @Test void createdFilesAreOwnerOnlyAndSharedBetweenMappings() {
        Path f = dir.resolve(SegmentFiles.name("abc123", 0, ProcessHandle.current().pid()));
        try (Arena a = Arena.ofShared()) {
            MemorySegment one = SegmentFiles.create(f, 8192, a);
            MemorySegment two = SegmentFiles.map(f, 8192, a);
            one.set(ValueLayout.JAVA_LONG, 4096, 0x1234_5678_9abcL);
            assertEquals(0x1234_5678_9abcL, two.get(ValueLayout.JAVA_LONG, 4096), "two mappings of one file share memory");
            assertEquals("rw-------", PosixFilePermissions.toString(filePermissions(f)));
        }
        SegmentFiles.delete(f);
        assertFalse(Files.exists(f));
    }

    @Test void existingFileIsNotReused() {
        Path f = dir.resolve(SegmentFiles.name("abc123", 1, ProcessHandle.current().pid()));
        try (Arena a = Arena.ofShared()) {
            SegmentFiles.create(f, 4096, a);
            var e = assertThrows(CommException.class, () -> SegmentFiles.create(f, 4096, a));
            assertTrue(e.getMessage().contains("cannot create the shared heap file"), e.getMessage());
        }
    }

    @Test void mappingAFileOfTheWrongSizeOrAMissingFileFails() throws Exception {
        Path f = dir.resolve("x");
        Files.write(f, new byte[100]);
        try (Arena a = Arena.ofShared()) {
            var e = assertThrows(CommException.class, () -> SegmentFiles.map(f, 4096, a));
            assertTrue(e.getMessage().contains("has 100 bytes, expected 4096"), e.getMessage());
            var m = assertThrows(CommException.class, () -> SegmentFiles.map(dir.resolve("gone"), 4096, a));
            assertTrue(m.getMessage().contains("is missing"), m.getMessage());
        }
    }

    @Test void staleFilesOfDeadProcessesAreReclaimedLiveOnesKept() throws Exception {
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        long deadPid = p.pid();
        Path stale = dir.resolve(SegmentFiles.name("0badc0de", 3, deadPid));
        Path live = dir.resolve(SegmentFiles.name("0badc0de", 0, ProcessHandle.current().pid()));
        Path foreign = dir.resolve("something-else-p" + deadPid);
        Files.write(stale, new byte[10]);
        Files.write(live, new byte[10]);
        Files.write(foreign, new byte[10]);
        assertEquals(java.util.List.of(stale), SegmentFiles.reclaimStale(dir));
        assertFalse(Files.exists(stale));
        assertTrue(Files.exists(live));
        assertTrue(Files.exists(foreign), "files that are not ours are never touched");
    }

    @Test void namesCarryThePid() {
        assertEquals(4711, SegmentFiles.pidOf(SegmentFiles.name("ff00", 2, 4711)));
        assertEquals(-1, SegmentFiles.pidOf("unicomm-shm-probe-123.tmp"));
    }

    private static java.util.Set<java.nio.file.attribute.PosixFilePermission> filePermissions(Path f) {
        try {
            return Files.getPosixFilePermissions(f);
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
    }
}
