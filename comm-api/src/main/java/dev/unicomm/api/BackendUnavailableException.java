package dev.unicomm.api;

import java.util.List;

/**
 * No backend could be selected. The message is a per-provider report: name, version, the root
 * cause and the fix (which artifact, library or driver is missing).
 */
public final class BackendUnavailableException extends CommException {
    private final List<BackendReport> reports;

    public BackendUnavailableException(String summary, List<BackendReport> reports) {
        super(summary + System.lineSeparator() + BackendReport.table(reports));
        this.reports = List.copyOf(reports);
    }

    /** One report per provider found on the class or module path. */
    public List<BackendReport> reports() {
        return reports;
    }
}
