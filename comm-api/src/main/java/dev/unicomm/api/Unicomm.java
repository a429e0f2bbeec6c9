package dev.unicomm.api;

import dev.unicomm.internal.checked.BackendAgreement;
import dev.unicomm.internal.checked.CheckedCommunicator;
import dev.unicomm.internal.checked.HostAgreement;
import dev.unicomm.internal.checked.HostAwareSelection;
import dev.unicomm.internal.checked.WhoOffers;
import dev.unicomm.internal.rendezvous.Rendezvous;
import dev.unicomm.spi.BackendCommunicator;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.BackendRegistry;
import dev.unicomm.spi.CommBackendProvider;
import dev.unicomm.spi.Store;
import java.util.List;

/**
 * The one front door: opens communicators, opens endpoints without a communicator, and reports the
 * backends on the class path. It is the only API class that touches the SPI and the internals.
 */
public final class Unicomm {
    private Unicomm() {}

    /** Opens a communicator configured from the environment ({@link CommConfig#fromEnvironment()}); collective. */
    public static Communicator connect() {
        return connect(CommConfig.fromEnvironment());
    }

    /**
     * Opens a communicator (collective over the job): selects the backend
     * ({@link BackendRegistry#select}), joins the rendezvous store, and opens the backend.
     *
     * @throws BackendUnavailableException if no backend can run here (the message is a per-backend report)
     * @throws IllegalArgumentException if the configuration names an unknown backend
     */
    public static Communicator connect(CommConfig config) {
        return connect(config, BackendRegistry.load());
    }

    /**
     * As {@link #connect(CommConfig)}, choosing among {@code registry}'s providers. The ranks first
     * meet at the rendezvous store, so that a rank that cannot choose a backend, or chooses another
     * one than the others ({@link BackendAgreement}), fails every rank at once instead of leaving
     * them waiting until the timeout.
     */
    public static Communicator connect(CommConfig config, BackendRegistry registry) {
        var opening = CheckedCommunicator.opening();
        Store store = Rendezvous.connect(config);
        CommBackendProvider provider;
        BackendReport report;
        HostAgreement.Agreed agreed;
        try {
            agreed = HostAgreement.agree(store, config, h -> HostAwareSelection.refusal(registry, config.backend(), h));
        } catch (RuntimeException | Error e) {
            abortAndClose(store, "rank " + config.rank() + " could not report its host: " + e.getMessage());
            throw e;
        }
        if (agreed.refusal() != null) {
            store.close(); // every rank fails alike: nobody to tell, nobody to blame
            throw new CommException(agreed.refusal());
        }
        HostTopology hosts = agreed.hosts();
        try {
            provider = HostAwareSelection.select(registry, config.backend(), hosts);
            report = BackendRegistry.report(provider);
            BackendAgreement.check(store, config, provider);
        } catch (RuntimeException | Error e) {
            // The others' exception says "rank r failed: " before this.
            abortAndClose(store, "could not settle on a backend: " + e.getMessage());
            throw e;
        }
        try {
            BackendCommunicator raw = provider.open(new BackendContext(config, store));
            CheckedCommunicator comm = new CheckedCommunicator(raw, report, config, store, provider, hosts);
            comm.opened(opening);
            return comm;
        } catch (RuntimeException | Error e) {
            abortAndClose(store, "backend '" + provider.name() + "' failed to open: " + e);
            throw e;
        }
    }

    /** Tells the other ranks why this one gives up; never hides the caller's error (the store may be gone already). */
    private static void abortAndClose(Store store, String reason) {
        try {
            store.abort(reason);
        } catch (RuntimeException alreadyGone) {
            // another rank aborted first, or the store's host left: the caller's own error is the one to report
        } finally {
            try {
                store.close();
            } catch (RuntimeException ignored) {
                // nothing more to release
            }
        }
    }

    /**
     * Endpoints of backend {@code backend} (e.g. {@code "rdma"}) without a communicator, or of the
     * highest-priority available backend that offers them when {@code backend} is {@code null}.
     * Inside a job, {@link Communicator#endpoints()} gives the same object.
     *
     * @throws IllegalArgumentException    if no such backend is on the class path, or it offers no endpoints
     * @throws BackendUnavailableException if it cannot run here (the message says why and how to fix it)
     */
    public static Endpoints endpoints(String backend) {
        return endpoints(backend, BackendRegistry.load());
    }

    /** As {@link #endpoints(String)}, choosing among {@code registry}'s providers. */
    static Endpoints endpoints(String backend, BackendRegistry registry) {
        CommBackendProvider p;
        if (backend != null) {
            p = registry.select(backend);
            if (!WhoOffers.declares(p, Capability.P2P_ENDPOINTS))
                throw new IllegalArgumentException("backend '" + backend + "' does not offer P2P endpoints; "
                        + WhoOffers.describe(Capability.P2P_ENDPOINTS, registry));
        } else {
            List<CommBackendProvider> withEndpoints = registry.providers().stream()
                    .filter(x -> WhoOffers.declares(x, Capability.P2P_ENDPOINTS))
                    .toList();
            if (withEndpoints.isEmpty())
                throw new IllegalArgumentException(
                        "no backend on the class path offers P2P endpoints (backends here: " + registry.knownNames()
                                + "); the rdma and ucx backends do: add dev.unicomm:backend-rdma (verbs) or dev.unicomm:backend-ucx (any network UCX drives)");
            try {
                p = BackendRegistry.of(withEndpoints).select(null);
            } catch (BackendUnavailableException e) {
                List<String> others = registry.providers().stream()
                        .filter(x -> !withEndpoints.contains(x))
                        .filter(x -> BackendRegistry.report(x).available())
                        .map(CommBackendProvider::name)
                        .sorted()
                        .toList();
                throw new BackendUnavailableException(
                        "no backend that offers P2P endpoints is available here"
                                + (others.isEmpty()
                                        ? ""
                                        : " (available: " + String.join(", ", others) + ", which offer"
                                                + (others.size() == 1 ? "s" : "") + " no P2P endpoints)")
                                + "; "
                                + WhoOffers.describe(Capability.P2P_ENDPOINTS, BackendRegistry.of(withEndpoints)),
                        e.reports());
            }
        }
        CommBackendProvider chosen = p;
        return chosen.endpoints()
                .orElseThrow(() -> new IllegalArgumentException(
                        "backend '" + chosen.name() + "' offers no endpoints without a communicator"));
    }

    /** One report per backend on the class or module path: availability, cause, fix, capabilities. */
    public static List<BackendReport> report() {
        return BackendRegistry.load().reports();
    }
}
