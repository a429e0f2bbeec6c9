package dev.unicomm.backend.nvshmem.internal.moe;

import static dev.unicomm.backend.nvshmem.internal.NvMoeArgs.ERR_ABORTED;
import static dev.unicomm.backend.nvshmem.internal.NvMoeArgs.ERR_DUPLICATE;
import static dev.unicomm.backend.nvshmem.internal.NvMoeArgs.ERR_EXPERT;
import static dev.unicomm.backend.nvshmem.internal.NvMoeArgs.ERR_TIMEOUT;

import dev.unicomm.api.CommException;
import dev.unicomm.api.CommTimeoutException;
import java.time.Duration;

/** The exception for an error record a MoE kernel wrote (code, then three details). */
final class MoeErrors {
    private MoeErrors() {}

    static RuntimeException of(long code, long a, long b, long v, String kernel, int experts, Duration timeout) {
        if (code == ERR_EXPERT)
            return new IllegalArgumentException(
                    "topkIdx[" + a + ", " + b + "] = " + v + " is not an expert: allowed are -1 (unused slot) and 0.."
                            + (experts - 1) + " (found by " + kernel + " on the GPU; the entry was skipped)");
        if (code == ERR_DUPLICATE)
            return new IllegalArgumentException("topkIdx[" + a + "] names expert " + v + " twice (slot " + b
                    + "); each row must select distinct experts (found by " + kernel
                    + " on the GPU; the repeat was skipped)");
        if (code == ERR_TIMEOUT)
            return new CommTimeoutException(kernel + " waiting for rank " + a + " (step " + b + ")", timeout);
        if (code == ERR_ABORTED)
            return new CommException(
                    kernel + " stopped waiting for rank " + a + " (step " + b + "): the job was aborted");
        return new CommException(kernel + " reported error code " + code);
    }
}
