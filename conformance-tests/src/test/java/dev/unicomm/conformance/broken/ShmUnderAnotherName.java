package dev.unicomm.conformance.broken;

import dev.unicomm.api.Capability;
import dev.unicomm.backend.shm.ShmBackendProvider;
import dev.unicomm.spi.Availability;
import dev.unicomm.spi.CommBackendProvider;
import java.util.Set;

/**
 * The real shm backend under a test double's name: its capabilities and availability, never picked unless named.
 * Subclasses say what {@link #open} returns (the broken decorators, the planted-fault engines).
 */
public abstract class ShmUnderAnotherName implements CommBackendProvider {
    /** The backend every double is built on. */
    protected final CommBackendProvider real = new ShmBackendProvider();

    private final String name;

    /** @param name the double's backend name, as kit plugs and {@code --backend} name it */
    protected ShmUnderAnotherName(String name) {
        this.name = name;
    }

    @Override
    public Set<Capability> capabilities() {
        return real.capabilities();
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Availability availability() {
        return real.availability();
    }

    /** Never picked unless named. */
    @Override
    public int priority() {
        return -100;
    }
}
