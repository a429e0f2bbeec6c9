package dev.unicomm.core;

import dev.unicomm.api.CommConfig;
import dev.unicomm.api.CommException;
import dev.unicomm.spi.CommBackendProvider;
import dev.unicomm.spi.Store;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Makes every rank of a job open the same backend, in the same version. Each rank chooses alone
 * (what it finds on its class path and hardware), so one rank that sees no GPU would otherwise
 * open another backend and wait on keys nobody writes until the timeout. Each rank publishes its
 * choice; rank 0 compares them all and publishes the verdict; on a mismatch every rank fails at
 * once with the same message, naming which ranks chose what.
 */
public final class BackendAgreement {
    private BackendAgreement() {}

    private static final String PREFIX = "unicomm/connect/backend/";
    private static final String VERDICT = PREFIX + "verdict";
    /** Ranks listed per choice in the message before "and N more". */
    private static final int RANKS_SHOWN = 8;

    /**
     * Publishes this rank's choice and waits for the job's verdict (a no-op for a single PE).
     *
     * @throws CommException on every rank if the ranks chose different backends or versions
     * @throws dev.unicomm.api.CommTimeoutException if a rank never publishes its choice
     */
    public static void check(Store store, CommConfig config, CommBackendProvider chosen) {
        if (config.worldSize() == 1) return;
        String mine = describe(chosen);
        store.set(PREFIX + config.rank(), mine.getBytes(StandardCharsets.UTF_8));
        String verdict;
        if (config.rank() == 0) {
            verdict = compare(store, config);
            store.set(VERDICT, verdict.getBytes(StandardCharsets.UTF_8));
        } else {
            verdict = new String(store.get(VERDICT, config.timeout()), StandardCharsets.UTF_8);
        }
        if (!verdict.isEmpty())
            throw new CommException(verdict + "; this rank (" + config.rank() + ") chose " + mine
                    + ". Name one backend for every rank (UNICOMM_BACKEND or 'unicomm run --backend'), or give every rank "
                    + "the same backends ('unicomm info' on each node shows what is missing)");
    }

    /** Empty when every rank chose the same; otherwise "ranks chose different backends: ...". */
    private static String compare(Store store, CommConfig config) {
        long deadline = System.nanoTime() + config.timeout().toNanos();
        Map<String, List<Integer>> byChoice = new LinkedHashMap<>();
        for (int r = 0; r < config.worldSize(); r++) {
            Duration left = Duration.ofNanos(Math.max(1_000_000, deadline - System.nanoTime()));
            String choice = new String(store.get(PREFIX + r, left), StandardCharsets.UTF_8);
            byChoice.computeIfAbsent(choice, c -> new ArrayList<>()).add(r);
        }
        if (byChoice.size() == 1) return "";
        StringBuilder sb = new StringBuilder("ranks chose different backends:");
        String sep = " ";
        for (var e : byChoice.entrySet()) {
            sb.append(sep).append(e.getKey()).append(" on ").append(ranks(e.getValue()));
            sep = "; ";
        }
        return sb.toString();
    }

    private static String describe(CommBackendProvider p) {
        return "'" + p.name() + "' " + p.version();
    }

    private static String ranks(List<Integer> ranks) {
        List<Integer> shown = ranks.subList(0, Math.min(RANKS_SHOWN, ranks.size()));
        String list = (ranks.size() == 1 ? "rank " : "ranks ") + shown.toString().replaceAll("[\\[\\]]", "");
        return ranks.size() > shown.size() ? list + " and " + (ranks.size() - shown.size()) + " more" : list;
    }
}
