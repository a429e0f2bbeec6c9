package dev.unicomm.cli;

import dev.unicomm.api.BackendReport;
import dev.unicomm.conformance.KitReport;
import java.util.List;
import java.util.stream.Collectors;

/** Minimal JSON writing for the CLI's machine-readable output. */
final class Json {
    private Json() {}

    /** JSON string literal; one escaper for the whole project (the kit's report uses the same). */
    static String str(String s) {
        return KitReport.str(s);
    }

    static String reports(List<BackendReport> reports) {
        return reports.stream()
                .map(r -> "{\"name\":" + str(r.name()) + ",\"version\":" + str(r.version())
                        + ",\"priority\":" + r.priority() + ",\"available\":" + r.available()
                        + ",\"cause\":" + str(r.cause()) + ",\"fix\":" + str(r.fix()) + ",\"detail\":" + str(r.detail())
                        + ",\"capabilities\":["
                        + r.capabilities().stream()
                                .map(c -> str(c.name()))
                                .sorted()
                                .collect(Collectors.joining(",")) + "]}")
                .collect(Collectors.joining(",", "[", "]"));
    }
}
