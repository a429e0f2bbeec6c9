package dev.unicomm.api;

/** The backend in use lacks a capability the call needs. */
public final class UnsupportedCapabilityException extends CommException {
    private final Capability capability;

    public UnsupportedCapabilityException(String backend, Capability capability, String what) {
        super("backend '" + backend + "' does not support " + capability + " (needed for " + what + ")");
        this.capability = capability;
    }

    /** The missing capability. */
    public Capability capability() {
        return capability;
    }
}
