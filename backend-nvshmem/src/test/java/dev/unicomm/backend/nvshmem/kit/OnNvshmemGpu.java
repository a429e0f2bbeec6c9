package dev.unicomm.backend.nvshmem.kit;

import dev.unicomm.backend.nvshmem.NvshmemBackendProvider;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;

/**
 * Mixed into the kit suites run against nvshmem: skips every rule, with the backend's own
 * reason, where no GPU with NVSHMEM is available (CI), instead of failing at job start.
 */
public interface OnNvshmemGpu {
    @BeforeEach
    default void requireNvshmemGpu() {
        var a = new NvshmemBackendProvider().availability();
        if (!a.available()) skipNotice(a.cause() + " (fix: " + a.fix() + ")");
        Assumptions.assumeTrue(a.available(), () -> "backend nvshmem is not available here: " + a.cause() + " (fix: " + a.fix() + ")");
    }

    /** One console line per test JVM (Surefire shows skip counts, not reasons). */
    static void skipNotice(String cause) {
        if (SkipNotice.PRINTED.compareAndSet(false, true))
            System.out.println("[backend-nvshmem] GPU tests SKIPPED: " + cause
                    + " (to run them: a machine with an NVIDIA GPU, nvcc and NVSHMEM; see scripts/gpu-run.sh)");
    }

    /** Holder of the once-per-JVM flag (an interface cannot have mutable static state of its own). */
    final class SkipNotice {
        private SkipNotice() {}
        static final AtomicBoolean PRINTED = new AtomicBoolean();
    }

    /** What every worker gets: NVLink multicast off (also the backend's default). */
    Map<String, String> WORKER_ENV = Map.of("NVSHMEM_DISABLE_NVLS", "1");
}
