package dev.unicomm.backend.shm;

import dev.unicomm.api.CommConfig;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

/** Jobs the shm tests start by hand: a one-PE configuration, the environment of a rank of a multi-process job. */
final class ShmJobs {
    private ShmJobs() {}

    /** One PE with its heap file in a test's own folder (2 s waits, 1 MiB heap). */
    static CommConfig singleRank(Path dir) {
        return new CommConfig(
                "shm",
                0,
                1,
                0,
                null,
                0,
                null,
                false,
                Duration.ofSeconds(2),
                1 << 20,
                Map.of("unicomm.shm.dir", dir.toString()));
    }

    /** The environment of rank {@code rank} of a 2-rank shm job whose store is on 127.0.0.1:{@code port} (4 MiB heaps, 30 s waits). */
    static Map<String, String> twoRankEnvironment(int rank, int port, String token) {
        return Map.of(
                "UNICOMM_RANK", "" + rank,
                "UNICOMM_WORLD_SIZE", "2",
                "UNICOMM_STORE", "127.0.0.1:" + port,
                "UNICOMM_TOKEN", token,
                "UNICOMM_BACKEND", "shm",
                "UNICOMM_HEAP_SIZE", "4M",
                "UNICOMM_TIMEOUT", "30s");
    }
}
