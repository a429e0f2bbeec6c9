package dev.unicomm.conformance.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.unicomm.conformance.ElasticSuite;
import dev.unicomm.conformance.KitPlug;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;

/** {@link ElasticSuite} on backend-shm with 3 ranks, heap files in a private folder that must end up empty. */
class ShmElasticTest extends ElasticSuite {
    private static final Path DIR = ShmKit.heapFolder("unicomm-elastic-shm-");
    static final KitPlug PLUG = ShmKit.PLUG
            .ranks(3)
            .timeout(Duration.ofSeconds(10))
            .heapSize(8 << 20)
            .workerEnvironment(Map.of("UNICOMM_SHM_DIR", DIR.toString()));

    @AfterAll
    void noHeapFileLeftThenRemoveFolder() throws IOException {
        assertEquals(List.of(), ShmKit.removeFolder(DIR), "heap files left in " + DIR);
    }
}
