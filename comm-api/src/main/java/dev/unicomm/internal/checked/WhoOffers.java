package dev.unicomm.internal.checked;

import dev.unicomm.api.BackendReport;
import dev.unicomm.api.Capability;
import dev.unicomm.spi.BackendRegistry;
import dev.unicomm.spi.CommBackendProvider;
import java.util.List;
import java.util.stream.Collectors;

/**
 * For messages about a missing capability: which backends on the class path declare it, and
 * whether they can run here, so that the user learns what to use instead (only on the error path:
 * it probes availability).
 */
public final class WhoOffers {
    private WhoOffers() {}

    /** E.g. "backends that offer P2P_ENDPOINTS: rdma (not available here: libibverbs.so.1 not found)". */
    public static String describe(Capability c, BackendRegistry registry) {
        List<CommBackendProvider> offering =
                registry.providers().stream().filter(p -> declares(p, c)).toList();
        if (offering.isEmpty())
            return "no backend on the class or module path offers " + c
                    + (c == Capability.P2P_ENDPOINTS ? " (dev.unicomm:backend-rdma does)" : "");
        return "backends that offer " + c + ": "
                + offering.stream()
                        .map(p -> {
                            BackendReport r = BackendRegistry.report(p);
                            return p.name()
                                    + (r.available()
                                            ? " (available)"
                                            : " (not available here"
                                                    + (r.cause().isEmpty() ? "" : ": " + r.cause()) + ")");
                        })
                        .collect(Collectors.joining(", "));
    }

    /** As {@link #describe(Capability, BackendRegistry)} over the backends on the class path. */
    public static String describe(Capability c) {
        return describe(c, BackendRegistry.load());
    }

    /** Whether {@code p} declares {@code c}; a provider whose capabilities throw declares nothing. */
    public static boolean declares(CommBackendProvider p, Capability c) {
        try {
            return p.capabilities().contains(c);
        } catch (RuntimeException e) {
            return false; // a provider that cannot say offers nothing to suggest
        }
    }
}
