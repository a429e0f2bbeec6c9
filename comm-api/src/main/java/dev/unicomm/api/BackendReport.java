package dev.unicomm.api;

import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What one backend provider says about itself on this machine.
 *
 * @param name         the provider's name ({@code -Dunicomm.backend=NAME})
 * @param version      its version
 * @param priority     higher wins when no backend is named
 * @param available    whether it can open a communicator here
 * @param cause        why not (root cause), empty when available
 * @param fix          what to install or set to make it available, empty when available
 * @param capabilities what it can do
 * @param detail       one line on what the backend found here (library version, transports), empty if it says nothing
 */
public record BackendReport(
        String name,
        String version,
        int priority,
        boolean available,
        String cause,
        String fix,
        Set<Capability> capabilities,
        String detail) {
    public BackendReport {
        capabilities = Set.copyOf(capabilities);
        cause = cause == null ? "" : cause;
        fix = fix == null ? "" : fix;
        detail = detail == null ? "" : detail;
    }

    /** Without a detail line. */
    public BackendReport(
            String name,
            String version,
            int priority,
            boolean available,
            String cause,
            String fix,
            Set<Capability> capabilities) {
        this(name, version, priority, available, cause, fix, capabilities, "");
    }

    /** Renders reports as an aligned text table, one provider per block. */
    public static String table(List<BackendReport> reports) {
        if (reports.isEmpty()) {
            return "  (no unicomm backend on the class or module path: add one, e.g. dev.unicomm:backend-shm)"
                    + System.lineSeparator();
        }
        StringBuilder sb = new StringBuilder();
        for (BackendReport r : reports) {
            sb.append(String.format(
                    "  %-10s %-16s priority %-4d %s%n",
                    r.name(), r.version(), r.priority(), r.available() ? "AVAILABLE" : "UNAVAILABLE"));
            if (!r.available()) {
                sb.append("      cause: ").append(r.cause()).append(System.lineSeparator());
                sb.append("      fix:   ").append(r.fix()).append(System.lineSeparator());
            }
            if (!r.detail().isEmpty())
                sb.append("      detail: ").append(r.detail()).append(System.lineSeparator());
            sb.append("      capabilities: ")
                    .append(r.capabilities().stream().map(Enum::name).sorted().collect(Collectors.joining(", ")))
                    .append(System.lineSeparator());
        }
        return sb.toString();
    }
}
