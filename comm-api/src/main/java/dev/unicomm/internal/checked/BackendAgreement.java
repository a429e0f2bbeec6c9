package dev.unicomm.internal.checked;

import dev.unicomm.api.CommConfig;
import dev.unicomm.api.CommException;
import dev.unicomm.spi.CommBackendProvider;
import dev.unicomm.spi.Store;
import java.nio.charset.StandardCharsets;

/**
 * Makes every rank of a job open the same backend, in the same version. Each rank chooses alone
 * (what it finds on its class path and hardware), so one rank that sees no GPU would otherwise
 * open another backend and wait on keys nobody writes until the timeout. Rank 0 publishes its
 * choice and goes on; every other rank compares its own with it. A rank that differs fails, and
 * its abort fails every other rank at once with the same message, naming both choices. Costs one
 * store round trip per rank and never waits for a slow rank.
 */
public final class BackendAgreement {
    private BackendAgreement() {}

    private static final String KEY = "unicomm/connect/backend/rank0";

    /**
     * Publishes (rank 0) or checks (the others) the choice; a no-op for a single PE.
     *
     * @throws CommException on a rank whose choice differs from rank 0's (the caller aborts the job with it)
     * @throws dev.unicomm.api.CommTimeoutException if rank 0 never publishes its choice
     */
    public static void check(Store store, CommConfig config, CommBackendProvider chosen) {
        if (config.worldSize() == 1) return;
        String mine = describe(chosen);
        if (config.rank() == 0) {
            store.set(KEY, mine.getBytes(StandardCharsets.UTF_8));
            return;
        }
        String rank0 = new String(store.get(KEY, config.timeout()), StandardCharsets.UTF_8);
        if (!rank0.equals(mine))
            throw new CommException(
                    "ranks chose different backends: rank 0 chose " + rank0 + ", rank " + config.rank() + " chose "
                            + mine
                            + ". Name one backend for every rank (UNICOMM_BACKEND or 'unicomm run --backend'), or give every rank "
                            + "the same backends ('unicomm info' on each node shows what is missing)");
    }

    private static String describe(CommBackendProvider p) {
        return "'" + p.name() + "' " + p.version();
    }
}
