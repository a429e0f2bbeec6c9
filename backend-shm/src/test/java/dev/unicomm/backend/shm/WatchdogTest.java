package dev.unicomm.backend.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.testsupport.MemoryStore;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A peer whose heap-file lock is gone is a failure, unless it passed its closing barrier first: a fast
 * PE may finish that barrier and exit while a slower one still waits there for a third (seen in CI
 * with 4 ranks on a loaded machine).
 */
class WatchdogTest {
    @TempDir
    Path dir;

    @Test
    void aPeerWhoseLockIsGoneIsBlamedUnlessItLeftAfterClosing() {
        long pid = ProcessHandle.current().pid();
        try (Arena arena = Arena.ofShared()) {
            Path peerFile = dir.resolve(SegmentFiles.name("feed01", 1, pid));
            SegmentFiles.Handle peerOwn = SegmentFiles.create(peerFile, Control.BYTES, arena);
            SegmentFiles.Handle seenFromRank0 = SegmentFiles.map(peerFile, Control.BYTES, arena);
            SegmentFiles.Handle mine =
                    SegmentFiles.create(dir.resolve(SegmentFiles.name("feed01", 0, pid)), Control.BYTES, arena);
            MemorySegment[] controls = {mine.segment(), seenFromRank0.segment()};
            Watchdog dog = new Watchdog(
                    0,
                    new long[] {pid, pid},
                    new SegmentFiles.Handle[] {mine, seenFromRank0},
                    new MemoryStore(2, Duration.ofSeconds(5)).view(0),
                    controls);

            assertNull(dog.checkPeers("a barrier"), "a peer that holds its lock is alive");
            peerOwn.close(); // the peer's process let its lock go
            CommAbortedException e = dog.checkPeers("a barrier");
            assertNotNull(e, "a peer that let its lock go without closing is a failure");
            assertEquals(1, e.failedRank());
            assertTrue(e.getMessage().contains("exited while rank 0 waited on a barrier"), e.getMessage());

            Words.setRelease(controls[1], Control.HDR_LEFT, 1);
            assertNull(dog.checkPeers("a barrier"), "a peer that passed its closing barrier owes nothing more");
            seenFromRank0.close();
            mine.close();
        }
    }
}
