package dev.unicomm.conformance.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.unicomm.conformance.ElasticSuite;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;

/** {@link ElasticSuite} on backend-shm with 3 ranks, heap files in a private folder that must end up empty. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ShmElasticTest extends ElasticSuite {
    private final Path dir = segmentDir();

    private static Path segmentDir() {
        try {
            Path base = Files.isDirectory(Path.of("/dev/shm"))
                    ? Path.of("/dev/shm")
                    : Path.of(System.getProperty("java.io.tmpdir"));
            return Files.createTempDirectory(base, "unicomm-elastic-shm-");
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
        return 3;
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

    @AfterAll
    void noHeapFileLeftThenRemoveFolder() throws IOException {
        List<Path> left;
        try (Stream<Path> s = Files.list(dir)) {
            left = s.toList();
        }
        for (Path p : left) Files.deleteIfExists(p);
        Files.deleteIfExists(dir);
        assertEquals(List.of(), left, "heap files left in " + dir);
    }
}
