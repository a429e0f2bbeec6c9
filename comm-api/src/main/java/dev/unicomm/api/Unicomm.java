package dev.unicomm.api;

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

    /** As {@link #connect(CommConfig)}, choosing among {@code registry}'s providers. */
    public static Communicator connect(CommConfig config, BackendRegistry registry) {
        var opening = CheckedCommunicator.opening();
        CommBackendProvider provider = registry.select(config.backend());
        BackendReport report = BackendRegistry.report(provider);
        Store store = Rendezvous.connect(config);
        try {
            BackendCommunicator raw = provider.open(new BackendContext(config, store));
            CheckedCommunicator comm = new CheckedCommunicator(raw, report, config, store);
            comm.opened(opening);
            return comm;
        } catch (RuntimeException | Error e) {
            try {
                store.abort("backend '" + provider.name() + "' failed to open on rank " + config.rank() + ": " + e);
            } finally {
                store.close();
            }
            throw e;
        }
    }

    /** One report per backend on the class or module path: availability, cause, fix, capabilities. */
    public static List<BackendReport> report() {
        return BackendRegistry.load().reports();
    }
}
