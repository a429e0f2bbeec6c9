package dev.unicomm.cli;

import dev.unicomm.api.BackendReport;
import java.util.List;
import java.util.stream.Collectors;

/** Minimal JSON writing for the CLI's machine-readable output. */
final class Json {
    private Json() {}

    static String str(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (ch < 0x20) b.append(String.format("\\u%04x", (int) ch));
                    else b.append(ch);
                }
            }
        }
        return b.append('"').toString();
    }

    static String reports(List<BackendReport> reports) {
        return reports.stream().map(r -> "{\"name\":" + str(r.name()) + ",\"version\":" + str(r.version())
                + ",\"priority\":" + r.priority() + ",\"available\":" + r.available()
                + ",\"cause\":" + str(r.cause()) + ",\"fix\":" + str(r.fix())
                + ",\"capabilities\":[" + r.capabilities().stream().map(c -> str(c.name())).sorted()
                .collect(Collectors.joining(",")) + "]}")
                .collect(Collectors.joining(",", "[", "]"));
    }
}
