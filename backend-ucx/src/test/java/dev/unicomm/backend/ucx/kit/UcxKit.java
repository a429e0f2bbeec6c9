package dev.unicomm.backend.ucx.kit;

import dev.unicomm.conformance.KitPlug;
import java.time.Duration;
import java.util.Map;

/** What every ucx kit run shares: the backend, the transport (tcp only: UCX's emulated RMA that needs the target's progress). */
final class UcxKit {
    private UcxKit() {}

    static final String BACKEND = "ucx";
    /** {@code UCX_TLS=tcp}: no shared-memory or self transport, so every byte takes UCX's software RMA over TCP. */
    static final Map<String, String> TCP_ONLY = Map.of("UCX_TLS", "tcp");

    static final Duration TIMEOUT = Duration.ofSeconds(60);
    static final long HEAP = 32L << 20;

    /** The kit plug of the ucx kit tests: the kit skips every suite, with the cause and the fix, where libucp is missing. */
    static final KitPlug PLUG = KitPlug.backend(BACKEND)
            .timeout(TIMEOUT)
            .heapSize(HEAP)
            .workerEnvironment(TCP_ONLY)
            .skipWhereUnavailable("UNICOMM_UCX_REQUIRE", null);
}
