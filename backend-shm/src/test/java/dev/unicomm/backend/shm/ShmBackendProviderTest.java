package dev.unicomm.backend.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.BackendUnavailableException;
import dev.unicomm.api.CommConfig;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.Unicomm;
import dev.unicomm.spi.Availability;
import dev.unicomm.spi.BackendRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShmBackendProviderTest {
    @TempDir
    Path dir;

    @Test
    void isFoundByServiceLoaderAndAvailableHere() {
        var p = BackendRegistry.load().providers().stream()
                .filter(x -> x.name().equals("shm"))
                .findFirst()
                .orElseThrow();
        assertEquals(ShmBackendProvider.class, p.getClass());
        assertTrue(p.availability().available(), p.availability().toString());
    }

    @Test
    void aMissingDirectoryIsReportedWithCauseAndFix() {
        String old = System.getProperty("unicomm.shm.dir");
        System.setProperty("unicomm.shm.dir", dir.resolve("nope").toString());
        try {
            Availability a = new ShmBackendProvider().availability();
            assertFalse(a.available());
            assertTrue(a.cause().contains("does not exist"), a.cause());
            assertTrue(a.fix().contains("tmpfs"), a.fix());
        } finally {
            if (old == null) System.clearProperty("unicomm.shm.dir");
            else System.setProperty("unicomm.shm.dir", old);
        }
    }

    @Test
    void openingWithAMissingDirectoryThrowsBackendUnavailableWithCauseAndFix() {
        Path missing = dir.resolve("gone");
        var e = assertThrows(
                BackendUnavailableException.class,
                () -> Unicomm.connect(new CommConfig(
                        "shm",
                        0,
                        1,
                        0,
                        null,
                        0,
                        null,
                        false,
                        Duration.ofSeconds(5),
                        1 << 16,
                        Map.of("unicomm.shm.dir", missing.toString()))));
        assertTrue(e.getMessage().contains("backend 'shm'"), e.getMessage());
        assertTrue(e.getMessage().contains(missing + " does not exist"), e.getMessage());
        assertTrue(
                e.getMessage().contains("docs/troubleshooting.md#shm-devshm-missing-or-not-writable"), e.getMessage());
        assertEquals(1, e.reports().size());
        assertFalse(e.reports().getFirst().available());
    }

    @Test
    void openingReclaimsFilesOfDeadProcesses() throws Exception {
        Process p = new ProcessBuilder("true").start();
        p.waitFor();
        Path stale = dir.resolve(SegmentFiles.name("deadbeef", 0, p.pid()));
        Files.write(stale, new byte[4096]);
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
                1 << 16,
                Map.of("unicomm.shm.dir", dir.toString())))) {
            assertFalse(Files.exists(stale), "the stale heap file of a dead process is removed on start");
            comm.barrier();
        }
    }
}
