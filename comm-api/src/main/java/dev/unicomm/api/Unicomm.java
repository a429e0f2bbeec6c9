package dev.unicomm.api;

import dev.unicomm.core.BackendAgreement;
import dev.unicomm.core.CheckedCommunicator;
import dev.unicomm.core.Rendezvous;
import dev.unicomm.spi.BackendCommunicator;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.BackendRegistry;
import dev.unicomm.spi.CommBackendProvider;
import dev.unicomm.spi.Store;
import java.util.List;

/** The entry point: opens communicators and reports the backends on the class path. */
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
        try {
            provider = registry.select(config.backend());
            report = BackendRegistry.report(provider);
            BackendAgreement.check(store, config, provider);
        } catch (RuntimeException | Error e) {
            abortAndClose(store, "rank " + config.rank() + " could not settle on a backend: " + e.getMessage());
            throw e;
        }
        try {
            BackendCommunicator raw = provider.open(new BackendContext(config, store));
            CheckedCommunicator comm = new CheckedCommunicator(raw, report, config, store);
            comm.opened(opening);
            return comm;
        } catch (RuntimeException | Error e) {
            abortAndClose(store, "backend '" + provider.name() + "' failed to open on rank " + config.rank() + ": " + e);
            throw e;
        }
    }

    private static void abortAndClose(Store store, String reason) {
        try {
            store.abort(reason);
        } finally {
            store.close();
        }
    }

    /** One report per backend on the class or module path: availability, cause, fix, capabilities. */
    public static List<BackendReport> report() {
        return BackendRegistry.load().reports();
    }
}
