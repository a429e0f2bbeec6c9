package dev.unicomm.conformance.selftest;

import dev.unicomm.api.Capability;
import dev.unicomm.spi.Availability;
import dev.unicomm.spi.BackendCommunicator;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.CommBackendProvider;
import java.util.Set;

/** A backend whose hardware is never there: the kit plug's gate must skip its rules with this cause ({@link KitPlugTest}). */
public final class UnpluggedProvider implements CommBackendProvider {
    static final String NAME = "unplugged";
    static final String CAUSE = "no Unplugged card in this machine";
    static final String FIX = "insert an Unplugged card";

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public int priority() {
        return -100;
    } // never picked unless named

    @Override
    public Set<Capability> capabilities() {
        return Set.of(Capability.RMA);
    }

    @Override
    public Availability availability() {
        return Availability.no(CAUSE, FIX);
    }

    @Override
    public BackendCommunicator open(BackendContext context) {
        throw new IllegalStateException("backend unplugged is never available: " + CAUSE);
    }
}
