package dev.unicomm.cli.example;

import dev.unicomm.api.Capability;
import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SymmetricHeap;
import dev.unicomm.api.Team;
import dev.unicomm.spi.Availability;
import dev.unicomm.spi.BackendCommunicator;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.BackendRegistry;
import dev.unicomm.spi.BackendSettings;
import dev.unicomm.spi.CommBackendProvider;
import java.util.Set;

/**
 * The example of docs/writing-a-backend.md: a backend written outside unicomm against its public SPI
 * only. It reuses backend-shm's transport (found through the SPI, so it needs no compile-time
 * dependency on it) and replaces its put with {@link StripedRma}; its own
 * setting {@code unicomm.vendorx.enabled} comes through {@link BackendSettings}. Registered in
 * {@code META-INF/services/dev.unicomm.spi.CommBackendProvider}.
 */
public final class VendorXProvider implements CommBackendProvider {
    public static final String NAME = "vendorx";

    private CommBackendProvider transport; // looked up lazily: provider constructors stay cheap

    private synchronized CommBackendProvider transport() {
        if (transport == null)
            transport = BackendRegistry.load().providers().stream()
                    .filter(p -> p.name().equals("shm"))
                    .findFirst()
                    .orElse(null);
        return transport;
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return -50;
    } // an example: never picked unless named

    @Override
    public Set<Capability> capabilities() {
        CommBackendProvider t = transport();
        return t == null ? Set.of() : t.capabilities();
    }

    @Override
    public Availability availability() {
        return availability(BackendSettings.fromEnvironment());
    }

    @Override
    public Availability availability(BackendSettings settings) {
        if ("false".equalsIgnoreCase(settings.get("vendorx.enabled", "true")))
            return Availability.no(
                    "switched off by unicomm.vendorx.enabled=false",
                    "unset unicomm.vendorx.enabled / UNICOMM_VENDORX_ENABLED");
        CommBackendProvider t = transport();
        if (t == null)
            return Availability.no(
                    "backend-shm, the transport vendorx builds on, is not on the class path",
                    "add dev.unicomm:backend-shm");
        return t.availability();
    }

    @Override
    public BackendCommunicator open(BackendContext context) {
        CommBackendProvider t = transport();
        if (t == null) throw new IllegalStateException("vendorx needs backend-shm on the class path");
        BackendCommunicator c = t.open(context);
        long stripe =
                Long.parseLong(context.config().property("vendorx.stripe", Long.toString(StripedRma.DEFAULT_STRIPE)));
        Rma rma = new StripedRma(c.rma(), stripe);
        return new BackendCommunicator() {
            @Override
            public int rank() {
                return c.rank();
            }

            @Override
            public int size() {
                return c.size();
            }

            @Override
            public SymmetricHeap heap() {
                return c.heap();
            }

            @Override
            public Rma rma() {
                return rma;
            }

            @Override
            public Team world() {
                return c.world();
            }

            @Override
            public void barrier() {
                c.barrier();
            }

            @Override
            public boolean acceptsLocal(MemoryKind kind) {
                return c.acceptsLocal(kind);
            }

            @Override
            public void close() {
                c.close();
            }
        };
    }
}
