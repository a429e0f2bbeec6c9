package dev.unicomm.cli;

import dev.unicomm.api.BackendReport;
import dev.unicomm.conformance.KitReport;
import dev.unicomm.conformance.KitRunner;
import dev.unicomm.conformance.KitSettings;
import dev.unicomm.conformance.KitSuites;
import dev.unicomm.spi.BackendRegistry;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code unicomm conformance}: runs the conformance kit against one backend and writes the report a
 * vendor attaches to a release (table on stdout, optionally JSON and JUnit XML).
 */
@Command(
        name = "conformance",
        mixinStandardHelpOptions = true,
        description = {
            "Runs the conformance kit against a backend: every suite as a real multi-process job of N ranks.",
            "Prints one line per rule (rule, level, result, time, reason for failures and skips) and a summary;",
            "exit code 0 when no rule failed, 1 when some did, 2 for bad arguments,",
            "3 when the kit itself could not run (a tool failure, not the backend's)."
        },
        footer = {"", "Example:  unicomm conformance --backend shm -n 4 --json shm-kit.json --junit-xml kit-xml/"})
public final class ConformanceCommand implements Callable<Integer> {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--backend",
            required = true,
            paramLabel = "NAME",
            description = "backend to test (see 'unicomm info')")
    String backend;

    @Option(
            names = {"-n", "--ranks"},
            defaultValue = "2",
            paramLabel = "N",
            description = "ranks per job (default ${DEFAULT-VALUE})")
    int ranks;

    @Option(names = "--json", paramLabel = "FILE", description = "write the report as JSON to FILE")
    Path json;

    @Option(names = "--junit-xml", paramLabel = "DIR", description = "write JUnit XML reports into DIR")
    Path junitXml;

    @Option(
            names = "--suite",
            paramLabel = "NAME",
            split = ",",
            description =
                    "run only these suites (repeatable or comma separated): ${COMPLETION-CANDIDATES}; the default run is every suite"
                            + " but FaultInjection and Elastic (they SIGKILL ranks at every phase), which run only when named",
            completionCandidates = SuiteNames.class)
    List<String> suites = new ArrayList<>();

    @Option(
            names = "--skip-suite",
            paramLabel = "NAME",
            split = ",",
            description =
                    "leave these suites out of the run (repeatable or comma separated), e.g. Faults, to run it alone afterwards:"
                            + " under NVIDIA MPS a killed rank leaves the MPS server refusing new processes")
    List<String> skipSuites = new ArrayList<>();

    @Option(
            names = "--rule",
            paramLabel = "RULE",
            split = ",",
            description =
                    "run only these rules of the selected suites (repeatable or comma separated), e.g. required_rma_put_all_sizes")
    List<String> rules = new ArrayList<>();

    @Option(names = "--timeout", paramLabel = "T", description = "limit of every wait inside the ranks (default 30s)")
    String timeout;

    @Option(names = "--heap", paramLabel = "BYTES", description = "symmetric heap per rank, e.g. 64M (default 64M)")
    String heap;

    @Option(
            names = {"--cp", "--classpath"},
            paramLabel = "CLASSPATH",
            description = "where the backend under test lives, if not on unicomm's class path")
    String classpath;

    @Option(
            names = {"-J", "--jvm-option"},
            paramLabel = "OPTION",
            description = "extra JVM option for every rank (repeatable)")
    List<String> jvmOptions = new ArrayList<>();

    @Option(names = "--quiet", description = "no line per rule while running; only the final table")
    boolean quiet;

    @Override
    public Integer call() throws IOException {
        PrintStream out = System.out;
        if (ranks < 1 || ranks > 1024) return usage("-n must be in 1..1024, got " + ranks);
        List<Class<?>> selected;
        List<DiscoverySelector> selectors;
        try {
            selected = select(suites, skipSuites);
            selectors = selectors(selected, rules);
        } catch (IllegalArgumentException e) {
            return usage(e.getMessage());
        }
        try (ExtraClassPath extra = ExtraClassPath.install(classpath)) {
            BackendRegistry registry = BackendRegistry.load();
            var provider = registry.providers().stream()
                    .filter(p -> p.name().equals(backend))
                    .findFirst();
            if (provider.isEmpty())
                return usage("unknown backend '" + backend + "'; on the class path: "
                        + registry.providers().stream()
                                .map(p -> p.name())
                                .sorted()
                                .toList() + " (add its jar with --cp)");
            BackendReport r = BackendRegistry.report(provider.get());
            if (!r.available()) {
                spec.commandLine()
                        .getErr()
                        .println("backend '" + backend + "' is not available here: " + r.cause()
                                + (r.fix().isBlank() ? "" : "\nfix: " + r.fix()));
                return 1;
            }
            Map<String, String> settings = new LinkedHashMap<>();
            settings.put(KitSettings.BACKEND, backend);
            settings.put(KitSettings.RANKS, Integer.toString(ranks));
            if (timeout != null) settings.put(KitSettings.TIMEOUT, timeout);
            if (heap != null) settings.put(KitSettings.HEAP, heap);
            if (classpath != null) settings.put(KitSettings.CLASSPATH, classpath);
            if (!jvmOptions.isEmpty()) settings.put(KitSettings.JVM_ARGS, String.join(" ", jvmOptions));
            if (junitXml != null) Files.createDirectories(junitXml);
            out.println("unicomm conformance: backend " + backend + " " + r.version() + ", " + ranks + " ranks, "
                    + selected.size() + " suites");
            KitReport report = KitRunner.runSelected(selectors, settings, junitXml, quiet ? null : out);
            out.println();
            out.print(report.table());
            if (json != null) {
                if (json.toAbsolutePath().getParent() != null)
                    Files.createDirectories(json.toAbsolutePath().getParent());
                Files.writeString(json, report.json());
                out.println("JSON report: " + json);
            }
            if (junitXml != null) out.println("JUnit XML: " + junitXml);
            if (report.certification() == KitReport.Certification.TOOL_FAILURE) {
                spec.commandLine()
                        .getErr()
                        .println("unicomm conformance: the kit could not run (a tool failure, not the backend's): "
                                + report.certificationLine());
                return 3;
            }
            return report.passed() ? 0 : 1;
        }
    }

    /** The configured suites whose short names were asked for (the default run when none); found by {@link KitSuites}. */
    static List<Class<?>> select(List<String> names) {
        if (names.isEmpty()) return KitSuites.defaultRun();
        List<Class<?>> out = new ArrayList<>();
        for (String n : names) {
            Class<?> match = KitSuites.byName(n);
            if (!out.contains(match)) out.add(match);
        }
        return out;
    }

    /** {@link #select(List)} without the suites named in {@code skip}. */
    static List<Class<?>> select(List<String> names, List<String> skip) {
        List<Class<?>> out = new ArrayList<>(select(names));
        for (String n : skip) out.remove(KitSuites.byName(n));
        if (out.isEmpty())
            throw new IllegalArgumentException("--skip-suite " + String.join(",", skip) + " leaves no suite to run");
        return out;
    }

    /** Whole suites, or only the named rules (each must be a rule of one of the suites). */
    static List<DiscoverySelector> selectors(List<Class<?>> suites, List<String> rules) {
        if (rules.isEmpty())
            return suites.stream()
                    .map(c -> (DiscoverySelector) DiscoverySelectors.selectClass(c))
                    .toList();
        List<DiscoverySelector> out = new ArrayList<>();
        for (String rule : rules) {
            String r = rule.trim();
            Class<?> owner = suites.stream()
                    .filter(c -> hasRule(c, r))
                    .findFirst()
                    .orElseThrow(
                            () -> new IllegalArgumentException(
                                    "no rule '" + r
                                            + "' in the selected suites (rule ids look like required_rma_put_all_sizes; see a full run's report)"));
            out.add(DiscoverySelectors.selectMethod(owner, r));
        }
        return out;
    }

    private static boolean hasRule(Class<?> suite, String rule) {
        for (Class<?> c = suite; c != null; c = c.getSuperclass()) {
            for (var m : c.getDeclaredMethods()) {
                if (m.getName().equals(rule)
                        && m.getParameterCount() == 0
                        && m.isAnnotationPresent(org.junit.jupiter.api.Test.class)) return true;
            }
        }
        return false;
    }

    /** The suite names for the help text, found the same way as the suites themselves. */
    static final class SuiteNames implements Iterable<String> {
        @Override
        public java.util.Iterator<String> iterator() {
            return KitSuites.configured().stream().map(KitSuites::shortName).iterator();
        }
    }

    private int usage(String message) {
        spec.commandLine().getErr().println("unicomm conformance: " + message);
        return 2;
    }
}
