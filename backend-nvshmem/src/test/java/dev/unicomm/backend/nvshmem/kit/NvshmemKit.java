package dev.unicomm.backend.nvshmem.kit;

import dev.unicomm.conformance.KitPlug;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * backend-nvshmem's kit plug. The kit owns the gate: where no GPU with NVSHMEM is available (CI) every
 * suite skips with the backend's own cause and fix instead of failing at job start. One GPU may host all
 * PEs (run under MPS). Every worker gets NVLink multicast off (also the backend's default).
 */
public final class NvshmemKit {
    private NvshmemKit() {}

    /** How to run the GPU tests, for skip notices. */
    static final String HOW_TO_RUN =
            "to run them: a machine with an NVIDIA GPU, nvcc and NVSHMEM; see scripts/gpu-run.sh";

    static final KitPlug PLUG = KitPlug.backend("nvshmem")
            .workerEnvironment(Map.of("NVSHMEM_DISABLE_NVLS", "1"))
            .skipWhereUnavailable(null, HOW_TO_RUN);

    private static final AtomicBoolean NOTICE_PRINTED = new AtomicBoolean();

    /** One console line per test JVM for the module's non-kit GPU tests (Surefire shows skip counts, not reasons). */
    public static void skipNotice(String cause) {
        if (NOTICE_PRINTED.compareAndSet(false, true))
            System.out.println("[backend-nvshmem] GPU tests SKIPPED: " + cause + " (" + HOW_TO_RUN + ")");
    }
}
