package dev.unicomm.conformance.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.unicomm.conformance.FaultInjectionSuite;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * {@link FaultInjectionSuite} on backend-shm with 4 ranks and a 10 s timeout, with the heap files in
 * a private tmpfs folder, so that what a killed rank leaves there can be checked.
 */
class ShmFaultInjectionTest extends FaultInjectionSuite {
    private final Path dir = segmentDir();

    private static Path segmentDir() {
        try {
            Path base = Files.isDirectory(Path.of("/dev/shm"))
                    ? Path.of("/dev/shm")
                    : Path.of(System.getProperty("java.io.tmpdir"));
            return Files.createTempDirectory(base, "unicomm-faultinj-shm-");
        } catch (IOException e) {
            throw new IllegalStateException("cannot create a folder for the heap files: " + e, e);
        }
    }

    @Override
    protected String backend() {
        return "shm";
    }

    @Override
    protected int ranks() {
        return 4;
    }

    @Override
    protected Duration timeout() {
        return Duration.ofSeconds(10);
    }

    @Override
    protected long heapSize() {
        return 8 << 20;
    }

    @Override
    protected Map<String, String> workerEnvironment() {
        return Map.of("UNICOMM_SHM_DIR", dir.toString());
    }

    private List<String> files() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /**
     * A rank killed inside its open (after creating its heap file) leaves nothing: the survivor that fails
     * in the same open removes the dead rank's file and the job's folder (issue #45 item 9; before, the file
     * stayed until the next start). The next start finds the folder empty and leaves it so.
     */
    @Test
    void required_faultinj_shm_heap_file_of_a_killed_rank_is_gone_when_the_open_fails() throws Exception {
        killInsideOpen();
        List<String> left = files();
        for (long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();
                !left.isEmpty() && System.nanoTime() < end;
                left = files()) Thread.sleep(50);
        assertEquals(List.of(), left, "entries in " + dir + " once the open that lost a rank failed");
        spmd(pe -> pe.comm().barrier()); // the kit restarts the job
        assertEquals(List.of(), files(), "entries in " + dir + " after the next start");
    }

    @AfterAll
    void removeFolder() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            for (Path p : s.toList()) Files.deleteIfExists(p);
        }
        Files.deleteIfExists(dir);
    }
}
