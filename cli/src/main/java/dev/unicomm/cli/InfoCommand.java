package dev.unicomm.cli;

import dev.unicomm.api.BackendReport;
import dev.unicomm.api.Capability;
import dev.unicomm.spi.BackendRegistry;
import dev.unicomm.spi.SettingsRegistry;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code unicomm info}: every backend on the class path, whether it can run here, and why not. */
@Command(
        name = "info",
        description = "List the backends on the class path: version, availability, cause, fix, capabilities; "
                + "with --settings, every unicomm.* setting and its effective value.")
final class InfoCommand implements Callable<Integer> {

    @Option(names = "--json", description = "Print JSON instead of a table.")
    boolean json;

    @Option(
            names = "--settings",
            description = "Print every unicomm.* setting: its effective value, where it came from "
                    + "(system property, environment or default) and what it means.")
    boolean settings;

    @Option(
            names = {"--cp", "--classpath"},
            paramLabel = "CLASSPATH",
            description = "also look for backends here (an out-of-tree backend's jars)")
    String classpath;

    @Override
    public Integer call() {
        try (ExtraClassPath extra = ExtraClassPath.install(classpath)) {
            return settings ? settings() : report();
        }
    }

    private Integer report() {
        BackendRegistry registry = BackendRegistry.load();
        List<BackendReport> reports = registry.reports();
        if (json) {
            System.out.println(Json.reports(reports));
        } else {
            System.out.println("unicomm backends (" + reports.size() + " found, highest priority first):");
            System.out.print(BackendReport.table(reports));
            reports.stream()
                    .filter(BackendReport::available)
                    .findFirst()
                    .ifPresentOrElse(
                            r -> System.out.println("default backend: " + r.name()),
                            () -> System.out.println("default backend: none available"));
            System.out.println(acrossHosts(reports));
        }
        registry.loadErrors().forEach(e -> System.out.println("load error: " + e));
        return 0;
    }

    private Integer settings() {
        List<SettingsRegistry.Value> values = SettingsRegistry.effective();
        if (json) {
            System.out.println(values.stream()
                    .map(v -> "{\"key\":" + Json.str(v.setting().property()) + ",\"value\":" + Json.str(shown(v))
                            + ",\"source\":" + Json.str(v.source()) + ",\"meaning\":"
                            + Json.str(v.setting().meaning()) + "}")
                    .collect(Collectors.joining(",", "[", "]")));
        } else {
            System.out.print(settingsTable(values));
        }
        return 0;
    }

    /** One block per setting: property and variable, then the value in effect and where it came from, then the meaning. */
    static String settingsTable(List<SettingsRegistry.Value> values) {
        StringBuilder b = new StringBuilder("unicomm settings (" + values.size()
                + "; system property unicomm.KEY, else environment UNICOMM_KEY, else the default):\n");
        for (SettingsRegistry.Value v : values) {
            b.append("  ")
                    .append(v.setting().property())
                    .append(" (")
                    .append(v.setting().variable())
                    .append(") = ")
                    .append(shown(v))
                    .append("  [")
                    .append(v.source())
                    .append("]\n")
                    .append("      ")
                    .append(v.setting().meaning())
                    .append('\n');
        }
        return b.toString();
    }

    /** The value as printed: secrets (a token, a password) are never shown, only whether they are set. */
    static String shown(SettingsRegistry.Value v) {
        String key = v.setting().key();
        boolean secret = key.equals("token") || key.endsWith(".token") || key.endsWith("password");
        if (secret && !v.source().equals(SettingsRegistry.DEFAULT)) return "(set, not shown)";
        return v.value();
    }

    /** Which backends a job across hosts may use (selection takes only those when the ranks span hosts). */
    static String acrossHosts(List<BackendReport> reports) {
        List<String> can = reports.stream()
                .filter(r -> r.capabilities().contains(Capability.MULTI_HOST))
                .map(r -> r.name() + (r.available() ? "" : " (not available here)"))
                .toList();
        List<String> cannot = reports.stream()
                .filter(r -> !r.capabilities().contains(Capability.MULTI_HOST))
                .map(BackendReport::name)
                .toList();
        return "across hosts: " + (can.isEmpty() ? "no backend here can span hosts" : String.join(", ", can))
                + (cannot.isEmpty() ? "" : "; one host only: " + String.join(", ", cannot));
    }
}
