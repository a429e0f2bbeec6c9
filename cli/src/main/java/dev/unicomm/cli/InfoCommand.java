package dev.unicomm.cli;

import dev.unicomm.api.BackendReport;
import dev.unicomm.api.Capability;
import dev.unicomm.spi.BackendRegistry;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code unicomm info}: every backend on the class path, whether it can run here, and why not. */
@Command(name = "info", description = "List the backends on the class path: version, availability, cause, fix, capabilities.")
final class InfoCommand implements Callable<Integer> {

    @Option(names = "--json", description = "Print JSON instead of a table.")
    boolean json;

    @Option(names = {"--cp", "--classpath"}, paramLabel = "CLASSPATH", description = "also look for backends here (an out-of-tree backend's jars)")
    String classpath;

    @Override public Integer call() {
        try (ExtraClassPath extra = ExtraClassPath.install(classpath)) {
            return report();
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
            reports.stream().filter(BackendReport::available).findFirst().ifPresentOrElse(
                    r -> System.out.println("default backend: " + r.name()),
                    () -> System.out.println("default backend: none available"));
            System.out.println(acrossHosts(reports));
        }
        registry.loadErrors().forEach(e -> System.out.println("load error: " + e));
        return 0;
    }

    /** Which backends a job across hosts may use (selection takes only those when the ranks span hosts). */
    static String acrossHosts(List<BackendReport> reports) {
        List<String> can = reports.stream().filter(r -> r.capabilities().contains(Capability.MULTI_HOST))
                .map(r -> r.name() + (r.available() ? "" : " (not available here)")).toList();
        List<String> cannot = reports.stream().filter(r -> !r.capabilities().contains(Capability.MULTI_HOST)).map(BackendReport::name).toList();
        return "across hosts: " + (can.isEmpty() ? "no backend here can span hosts" : String.join(", ", can))
                + (cannot.isEmpty() ? "" : "; one host only: " + String.join(", ", cannot));
    }
}
