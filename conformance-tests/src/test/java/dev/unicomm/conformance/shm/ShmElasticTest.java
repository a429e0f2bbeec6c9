package dev.unicomm.conformance.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.unicomm.conformance.ElasticSuite;
import dev.unicomm.conformance.KitPlug;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;

/** {@link ElasticSuite} on backend-shm with 3 ranks, heap files in a private folder that must end up empty. */
class ShmElasticTest extends ElasticSuite {
    private static final Path DIR = ShmKit.heapFolder("unicomm-elastic-shm-");
    static final KitPlug PLUG = ShmKit.withHeapFolder(3, DIR);

    @AfterAll
    void noHeapFileLeftThenRemoveFolder() throws IOException {
        assertEquals(List.of(), ShmKit.removeFolder(DIR), "heap files left in " + DIR);
    }
}
