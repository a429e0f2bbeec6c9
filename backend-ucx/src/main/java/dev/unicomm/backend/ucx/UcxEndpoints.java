package dev.unicomm.backend.ucx;

import dev.unicomm.api.Endpoint;
import dev.unicomm.api.EndpointOptions;
import dev.unicomm.api.Endpoints;
import dev.unicomm.api.NicInfo;
import dev.unicomm.backend.ucx.internal.UcxEndpoint;
import dev.unicomm.backend.ucx.internal.UcxProbe;
import dev.unicomm.spi.BackendSettings;
import java.util.List;

/**
 * Transfer endpoints over UCX, the same API as rdma's (DLSlime style), reached through the one front door:
 * <pre>{@code
 * Endpoints ucx = Unicomm.endpoints("ucx");
 * try (Endpoint a = ucx.open(); Endpoint b = ucx.open()) {
 *     a.registerRegion("buffer", Memory.of(segA));
 *     b.registerRegion("buffer", Memory.of(segB));
 *     b.connect(a.localInfo());                                        // out of band in real life
 *     a.connect(b.localInfo());
 *     a.read("buffer", new long[] {0}, new long[] {8}, 8);
 * }
 * }</pre>
 * Of {@link EndpointOptions} only {@code device} (a network device UCX may use: {@code NET_DEVICES}),
 * {@code busyPoll} and {@code timeout} matter; UCX chooses lanes and transports itself. Settings as the
 * communicator's: {@code unicomm.ucx.library}, {@code unicomm.ucx.progress_spin}, {@code unicomm.ucx.progress_poll_ms},
 * and every {@code UCX_*} variable. See docs/backends/ucx.md.
 */
final class UcxEndpoints implements Endpoints {
    private static final UcxEndpoints INSTANCE = new UcxEndpoints();

    private UcxEndpoints() {}

    static UcxEndpoints get() {
        return INSTANCE;
    }

    /**
     * The network devices UCX found here (its {@code tcp} and verbs resources), one {@link NicInfo} each; UCX
     * does not report verbs ports and GIDs, so the port lists are empty.
     */
    @Override
    public List<NicInfo> devices() {
        String library = UcxBackendProvider.library(BackendSettings.fromEnvironment());
        UcxProbe.availability(library).ensureAvailable("ucx");
        return UcxProbe.networkDevices(library).stream()
                .map(d -> new NicInfo(d, List.of()))
                .toList();
    }

    /**
     * Opens an endpoint with its own UCP context, worker and progress thread.
     *
     * @throws IllegalArgumentException if {@code options.device()} is not a network device UCX found here (the message lists them)
     */
    @Override
    public Endpoint open(EndpointOptions options) {
        if (options == null) throw new IllegalArgumentException("endpoint options must not be null");
        BackendSettings settings = BackendSettings.fromEnvironment();
        String library = UcxBackendProvider.library(settings);
        UcxProbe.availability(library).ensureAvailable("ucx");
        if (options.device() != null) {
            List<String> devices = UcxProbe.networkDevices(library);
            if (!devices.contains(options.device()))
                throw new IllegalArgumentException("UCX has no network device '" + options.device()
                        + "'; devices here: " + devices + " (ucx_info -d lists them)");
        }
        int spin = integer(settings, "ucx.progress_spin", 200), pollMs = integer(settings, "ucx.progress_poll_ms", 1);
        if (spin < 0 || pollMs < 0 || pollMs > 1000)
            throw new IllegalArgumentException(
                    "unicomm.ucx.progress_spin must be >= 0 and unicomm.ucx.progress_poll_ms in 0..1000 (got " + spin
                            + ", " + pollMs + ")");
        return UcxEndpoint.open(library, options, spin, pollMs);
    }

    private static int integer(BackendSettings settings, String key, int def) {
        String v = settings.get(key, Integer.toString(def)).strip();
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("unicomm." + key + " must be an integer, got '" + v + "'");
        }
    }
}
