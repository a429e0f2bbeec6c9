package dev.unicomm.backend.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.CommConfig;
import dev.unicomm.api.CommException;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.testsupport.ThreadJob;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #18 finding 3 on a real 64 MiB tmpfs (root only; skipped with the reason otherwise): heaps
 * that fit one at a time but not together fail at open with a message naming the folder, the sizes
 * and the setting — never SIGBUS ({@code InternalError}) when the pages are first touched.
 */
class ShmSpaceTest {
    static final long HEAP = 40L << 20;

    @TempDir
    Path tmp;

    Path shm;

    @BeforeEach
    void mount() throws Exception {
        shm = Files.createDirectory(tmp.resolve("small-shm"));
        RootOnly.mountTmpfs(shm, "64m");
    }

    @AfterEach
    void unmount() {
        if (shm != null) RootOnly.unmount(shm);
    }

    @Test
    void twoRanksWhoseHeapsTogetherOverflowTheFolderFailAtOpenNamingFolderSizesAndSetting() throws Exception {
        var outcomes = ThreadJob.of(new ShmBackendProvider(), 2)
                .configs(rank -> new CommConfig(
                        "shm",
                        rank,
                        2,
                        rank,
                        "in-process",
                        1,
                        null,
                        false,
                        Duration.ofSeconds(20),
                        HEAP,
                        Map.of("unicomm.shm.dir", shm.toString())))
                .run(comm -> {
                    // Old behaviour: both opened, then touching the pages raised InternalError (SIGBUS).
                    try (SymmetricBuffer b = comm.heap().allocate(HEAP - (1 << 20))) {
                        b.segment().fill((byte) 1);
                        comm.barrier();
                    }
                    return "opened and filled";
                });
        Throwable e0 = outcomes.get(0).error();
        assertInstanceOf(CommException.class, e0, "rank 0 must fail at open with a clear message, got " + e0);
        String m = e0.getMessage();
        assertTrue(
                m.contains(shm.toString())
                        && m.contains("2 ranks x " + (HEAP + Control.BYTES) + " bytes")
                        && m.contains("unicomm.heap.size"),
                m);
        Throwable e1 = outcomes.get(1).error();
        assertTrue(
                e1 instanceof CommAbortedException a
                        && a.failedRank() == 0
                        && a.getMessage().contains("not enough space in"),
                "rank 1 must learn why rank 0 failed: " + e1);
        try (Stream<Path> left = Files.list(shm)) {
            assertEquals(List.of(), left.toList(), "no heap file may be left behind");
        }
    }

    @Test
    void backingAFileThatDoesNotFitIsAClearErrorNotASigbus() throws Exception {
        Path f = shm.resolve("big");
        try (FileChannel ch = FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            var e = assertThrows(CommException.class, () -> SegmentFiles.reserve(ch, shm, 80L << 20));
            assertTrue(
                    e.getMessage().contains("not enough space in " + shm)
                            && e.getMessage().contains("ran out after")
                            && e.getMessage().contains("unicomm.heap.size"),
                    e.getMessage());
        }
    }
}
