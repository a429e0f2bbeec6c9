package dev.unicomm.conformance.broken;

import dev.unicomm.api.Capability;
import java.util.EnumSet;
import java.util.Set;

/** The real shm backend declaring no ATOMICS: the portable MoE cannot run on it, so the required MoE rules must fail, not skip. */
public final class NoAtomicsProvider extends DecoratedProvider {
    public static final String NAME = "shm-no-atomics";

    public NoAtomicsProvider() {
        super(NAME, ForwardingRma::new);
    }

    @Override
    public Set<Capability> capabilities() {
        Set<Capability> caps = EnumSet.copyOf(super.capabilities());
        caps.remove(Capability.ATOMICS);
        return caps;
    }
}
