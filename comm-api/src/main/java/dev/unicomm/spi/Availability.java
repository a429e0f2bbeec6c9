package dev.unicomm.spi;

import dev.unicomm.api.BackendReport;
import dev.unicomm.api.BackendUnavailableException;
import java.util.List;
import java.util.Set;

/**
 * Whether a backend can run here and, if not, the root cause and the fix. Probes keep the
 * {@link Throwable} that made them fail (as Netty's {@code Epoll.unavailabilityCause()} does), so
 * {@link #ensureAvailable} can chain it and nothing of the native loader's message is lost.
 *
 * @param available whether {@code open} can succeed on this machine
 * @param cause     the root cause when unavailable (e.g. "libibverbs.so.1: cannot open shared object file")
 * @param fix       what to do about it (e.g. "install rdma-core (apt-get install rdma-core)")
 * @param error     the failure behind {@code cause}, or {@code null} when the probe found no exception
 * @param detail    one line on what the backend found when available (library version, transports), shown by {@code unicomm info}; may be empty
 *                  (e.g. a device count of zero)
 */
public record Availability(boolean available, String cause, String fix, Throwable error, String detail) {
    public Availability {
        if (!available && (cause == null || cause.isBlank()))
            throw new IllegalArgumentException("an unavailable backend must say why");
        cause = cause == null ? "" : cause;
        fix = fix == null ? "" : fix;
        detail = detail == null ? "" : detail.strip();
    }

    /** Without a detail line. */
    public Availability(boolean available, String cause, String fix, Throwable error) {
        this(available, cause, fix, error, "");
    }

    /** Without a Throwable (a condition found, not an exception caught). */
    public Availability(boolean available, String cause, String fix) {
        this(available, cause, fix, null);
    }

    /** Available. */
    public static Availability yes() {
        return new Availability(true, "", "", null);
    }

    /**
     * Available, with one short line about what the backend found here ({@code unicomm info} prints it), e.g. the
     * library version and the transports it will use.
     */
    public static Availability yes(String detail) {
        return new Availability(true, "", "", null, detail);
    }

    /** Unavailable because of {@code cause}; {@code fix} says what to do. */
    public static Availability no(String cause, String fix) {
        return new Availability(false, cause, fix, null);
    }

    /** Unavailable because {@code error} was thrown; its message is the cause, {@code fix} says what to do. */
    public static Availability no(Throwable error, String fix) {
        return new Availability(false, describe(error), fix, error);
    }

    /** Unavailable: {@code cause} explains {@code error} in the backend's words; {@code fix} says what to do. */
    public static Availability no(String cause, Throwable error, String fix) {
        return new Availability(false, cause, fix, error);
    }

    /**
     * Returns quietly when available, else throws naming {@code backendName}, the cause and the fix,
     * with {@link #error()} as the exception's cause. Every provider's {@code open} calls this (through
     * {@link #ensureAvailable(CommBackendProvider)}) before it touches native code.
     *
     * @throws BackendUnavailableException when unavailable
     */
    public void ensureAvailable(String backendName) {
        if (available) return;
        throw unavailable(new BackendReport(backendName, "", 0, false, cause, fix, Set.of()));
    }

    /** {@link #ensureAvailable(String)} whose report also carries the provider's version, priority and capabilities. */
    public void ensureAvailable(CommBackendProvider provider) {
        if (available) return;
        throw unavailable(new BackendReport(
                provider.name(), provider.version(), provider.priority(), false, cause, fix, provider.capabilities()));
    }

    private BackendUnavailableException unavailable(BackendReport report) {
        var e = new BackendUnavailableException(
                "backend '" + report.name() + "' is not available here: " + cause + " (fix: "
                        + (fix.isBlank() ? "none known" : fix) + ")",
                List.of(report));
        if (error != null) e.initCause(error);
        return e;
    }

    private static String describe(Throwable error) {
        if (error == null) throw new IllegalArgumentException("an unavailable backend must say why");
        String m = error.getMessage();
        return m == null || m.isBlank() ? error.toString() : m;
    }
}
