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
    @TempDir
    Path dir;

    @Test
    void createdFilesAreOwnerOnlyAndSharedBetweenMappings() {
        Path f = dir.resolve(
                SegmentFiles.name("abc123", 0, ProcessHandle.current().pid()));
        try (Arena a = Arena.ofShared();
                SegmentFiles.Handle h1 = SegmentFiles.create(f, 8192, a);
                SegmentFiles.Handle h2 = SegmentFiles.map(f, 8192, a)) {
            MemorySegment one = h1.segment(), two = h2.segment();
            one.set(ValueLayout.JAVA_LONG, 4096, 0x1234_5678_9abcL);
            assertEquals(
                    0x1234_5678_9abcL, two.get(ValueLayout.JAVA_LONG, 4096), "two mappings of one file share memory");
            assertEquals("rw-------", PosixFilePermissions.toString(filePermissions(f)));
        }
        SegmentFiles.delete(f);
        assertFalse(Files.exists(f));
    }

    @Test
    void existingFileIsNotReused() {
        Path f = dir.resolve(
                SegmentFiles.name("abc123", 1, ProcessHandle.current().pid()));
        try (Arena a = Arena.ofShared();
                SegmentFiles.Handle h = SegmentFiles.create(f, 4096, a)) {
            var e = assertThrows(CommException.class, () -> SegmentFiles.create(f, 4096, a));
            assertTrue(e.getMessage().contains("cannot create the shared heap file"), e.getMessage());
            assertTrue(Files.exists(f), "the failed second create must not delete the first one's file");
        }
    }

    @Test
    void mappingAFileOfTheWrongSizeOrAMissingFileFails() throws Exception {
        Path f = dir.resolve("x");
        Files.write(f, new byte[100]);
        try (Arena a = Arena.ofShared()) {
            var e = assertThrows(CommException.class, () -> SegmentFiles.map(f, 4096, a));
            assertTrue(e.getMessage().contains("has 100 bytes, expected 4096"), e.getMessage());
            var m = assertThrows(CommException.class, () -> SegmentFiles.map(dir.resolve("gone"), 4096, a));
            assertTrue(m.getMessage().contains("is missing"), m.getMessage());
        }
    }

    @Test
    void filesNobodyHoldsAreReclaimedHeldOnesKeptWhateverTheirPid() throws Exception {
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        long deadPid = p.pid(), livePid = ProcessHandle.current().pid();
        Path stale = dir.resolve(SegmentFiles.name("0badc0de", 3, deadPid));
        // Liveness is the file's lock, not the pid in its name: a live pid whose file nobody locks is stale too.
        Path unlockedLivePid = dir.resolve(SegmentFiles.name("0badc0de", 1, livePid));
        Path held = dir.resolve(SegmentFiles.name("0badc0de", 0, deadPid));
        Path foreign = dir.resolve("something-else-p" + deadPid);
        Files.write(stale, new byte[10]);
        Files.write(unlockedLivePid, new byte[10]);
        Files.write(foreign, new byte[10]);
        try (Arena a = Arena.ofShared();
                SegmentFiles.Handle h = SegmentFiles.create(held, 4096, a)) {
            var removed = SegmentFiles.reclaimStale(dir);
            assertEquals(java.util.Set.of(stale, unlockedLivePid), java.util.Set.copyOf(removed));
            assertTrue(Files.exists(held), "a file whose creator holds its lock is never deleted");
            assertTrue(h.ownerAlive());
        }
        assertTrue(Files.exists(foreign), "files that are not ours are never touched");
        assertEquals(
                java.util.List.of(held), SegmentFiles.reclaimStale(dir), "once its creator let go, the file is stale");
    }

    @Test
    void unrenamedNewFilesAreReclaimedOnlyWhenOldAndUnlocked() throws Exception {
        Path old = dir.resolve("." + SegmentFiles.name("0badc0de", 0, 1) + ".new");
        Path young = dir.resolve("." + SegmentFiles.name("0badc0de", 1, 1) + ".new");
        Files.write(old, new byte[10]);
        Files.write(young, new byte[10]);
        Files.setLastModifiedTime(
                old,
                java.nio.file.attribute.FileTime.fromMillis(
                        System.currentTimeMillis() - 2 * SegmentFiles.FRESH_GRACE_MS));
        assertEquals(
                java.util.List.of(old),
                SegmentFiles.reclaimStale(dir),
                "a creator between create and lock must not lose its file");
        assertTrue(Files.exists(young));
    }

    @Test
    void createLeavesNoTemporaryName() throws Exception {
        Path f = dir.resolve(
                SegmentFiles.name("abc123", 4, ProcessHandle.current().pid()));
        try (Arena a = Arena.ofShared();
                SegmentFiles.Handle h = SegmentFiles.create(f, 8192, a);
                var names = Files.list(dir)) {
            assertEquals(java.util.List.of(f), names.toList());
        }
    }

    @Test
    void aPeerHandleSeesItsOwnerGoAway() throws Exception {
        Path f = dir.resolve(
                SegmentFiles.name("abc123", 2, ProcessHandle.current().pid()));
        // The owner is another process: a child JVM would be slow, so a peer handle probes a file this test locks and
        // unlocks.
        Files.write(f, new byte[4096]);
        try (Arena a = Arena.ofShared();
                SegmentFiles.Handle peer = SegmentFiles.map(f, 4096, a)) {
            assertFalse(peer.ownerAlive(), "nobody holds the lock: the owner is gone");
            try (var ch = java.nio.channels.FileChannel.open(f, java.nio.file.StandardOpenOption.WRITE);
                    var lock = ch.lock(0, 1, false)) {
                assertTrue(peer.ownerAlive(), "a lock held (here: in this JVM) means alive");
            }
        }
    }

    @Test
    void namesCarryThePid() {
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
