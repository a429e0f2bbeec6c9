package dev.unicomm.backend.nvshmem.kit;

import dev.unicomm.backend.nvshmem.NvshmemProvider;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;

/**
 * Mixed into the kit suites run against nvshmem: skips every rule, with the backend's own
 * reason, where no GPU with NVSHMEM is available (CI), instead of failing at job start.
 */
public interface OnNvshmemGpu {
    @BeforeEach
    default void requireNvshmemGpu() {
        var a = new NvshmemProvider().availability();
        Assumptions.assumeTrue(a.available(), () -> "backend nvshmem is not available here: " + a.cause() + " (fix: " + a.fix() + ")");
    }

    /** What every worker gets: NVLink multicast off (also the backend's default). */
    Map<String, String> WORKER_ENV = Map.of("NVSHMEM_DISABLE_NVLS", "1");
}
