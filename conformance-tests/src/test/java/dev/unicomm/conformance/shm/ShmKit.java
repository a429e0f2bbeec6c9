package dev.unicomm.conformance.shm;

import dev.unicomm.conformance.KitPlug;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** backend-shm's kit plug: the reference backend runs everywhere, so no gate and no untested rule; each kit test picks its size. */
final class ShmKit {
    private ShmKit() {}

    static final KitPlug PLUG = KitPlug.backend("shm");

    /**
     * A private folder for a suite's heap files (give it to the ranks as {@code UNICOMM_SHM_DIR}), on tmpfs where
     * there is one, so that what the ranks leave there can be checked. A rank process that the kit started loads
     * the suite's class too: it takes the launcher's folder (its {@code UNICOMM_SHM_DIR}) instead of creating one
     * that nobody removes.
     */
    static Path heapFolder(String prefix) {
        String given = System.getenv("UNICOMM_SHM_DIR");
        if (given != null && Path.of(given).getFileName().toString().startsWith(prefix)) return Path.of(given);
        try {
            Path base = Files.isDirectory(Path.of("/dev/shm"))
                    ? Path.of("/dev/shm")
                    : Path.of(System.getProperty("java.io.tmpdir"));
            return Files.createTempDirectory(base, prefix);
        } catch (IOException e) {
            throw new IllegalStateException("cannot create a folder for the heap files: " + e, e);
        }
    }

    /** The plug of a suite that checks its heap files: {@code ranks}, 10 s waits, 8 MiB heaps, the files in {@code dir}. */
    static KitPlug withHeapFolder(int ranks, Path dir) {
        return PLUG.ranks(ranks)
                .timeout(Duration.ofSeconds(10))
                .heapSize(8 << 20)
                .workerEnvironment(Map.of("UNICOMM_SHM_DIR", dir.toString()));
    }

    /** The names of the entries of {@code dir}, sorted. */
    static List<String> entries(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** Removes {@code dir} and its entries; returns the names of the entries that were there. */
    static List<String> removeFolder(Path dir) throws IOException {
        List<String> left = entries(dir);
        for (String name : left) Files.deleteIfExists(dir.resolve(name));
        Files.deleteIfExists(dir);
        return left;
    }
}
