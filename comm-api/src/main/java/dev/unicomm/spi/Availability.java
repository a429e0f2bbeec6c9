package dev.unicomm.spi;

/**
 * Whether a backend can run here and, if not, the root cause and the fix.
 *
 * @param available whether {@code open} can succeed on this machine
 * @param cause     the root cause when unavailable (e.g. "libibverbs.so.1: cannot open shared object file")
 * @param fix       what to do about it (e.g. "install rdma-core (apt-get install rdma-core)")
 */
public record Availability(boolean available, String cause, String fix) {
    public Availability {
        if (!available && (cause == null || cause.isBlank()))
            throw new IllegalArgumentException("an unavailable backend must say why");
    }

    /** Available. */
    public static Availability yes() { return new Availability(true, "", ""); }

    /** Unavailable because of {@code cause}; {@code fix} says what to do. */
    public static Availability no(String cause, String fix) { return new Availability(false, cause, fix == null ? "" : fix); }
}
