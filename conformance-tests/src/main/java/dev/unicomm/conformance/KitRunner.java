package dev.unicomm.conformance;

import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectMethod;

import dev.unicomm.api.BackendReport;
import dev.unicomm.spi.BackendRegistry;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.support.descriptor.ClassSource;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.EngineFilter;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.reporting.legacy.xml.LegacyXmlReportGeneratingListener;

/**
 * Runs kit suites through the JUnit Platform Launcher and collects a {@link KitReport}. Used by
 * {@code unicomm conformance} and by the kit's own tests; the suites of a whole run come from
 * {@link KitSuites}.
 */
public final class KitRunner {
    private KitRunner() {}

    /** Every configured suite of a default run, found by {@link KitSuites} (all suites but those run only when named). */
    public static List<Class<?>> defaultSuites() {
        return KitSuites.defaultRun();
    }

    /**
     * Runs {@code suites} with the given kit settings (e.g. {@code unicomm.kit.backend=shm},
     * {@code unicomm.kit.ranks=4}) set as system properties for the duration of the run.
     *
     * @param junitXmlDir where to write JUnit XML (one file per suite), or {@code null}
     * @param progress    where to print one line per finished rule, or {@code null}
     */
    public static KitReport run(
            List<Class<?>> suites, Map<String, String> settings, Path junitXmlDir, PrintStream progress) {
        return runSelected(
                suites.stream().map(c -> (DiscoverySelector) selectClass(c)).toList(), settings, junitXmlDir, progress);
    }

    /** Runs only the named rules of {@code suite} (for focused runs: a vendor's bisection, the kit's own tests). */
    public static KitReport runRules(
            Class<?> suite, List<String> rules, Map<String, String> settings, Path junitXmlDir, PrintStream progress) {
        return runSelected(
                rules.stream()
                        .map(r -> (DiscoverySelector) selectMethod(suite, r))
                        .toList(),
                settings,
                junitXmlDir,
                progress);
    }

    /** Runs whatever {@code selectors} select, with the given kit settings. */
    public static KitReport runSelected(
            List<DiscoverySelector> selectors, Map<String, String> settings, Path junitXmlDir, PrintStream progress) {
        Map<String, String> saved = new HashMap<>();
        settings.forEach((k, v) -> saved.put(k, System.setProperty(k, v)));
        try {
            String backend = KitSettings.get(KitSettings.BACKEND, "?");
            String version = BackendRegistry.load().providers().stream()
                    .filter(p -> p.name().equals(backend))
                    .findFirst()
                    .map(p -> BackendRegistry.report(p))
                    .map(BackendReport::version)
                    .orElse("(not on the class path)");
            Collector collector = new Collector(progress);
            LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                    .selectors(selectors)
                    .filters(EngineFilter.includeEngines("junit-jupiter"))
                    .build();
            Launcher launcher = LauncherFactory.create();
            List<TestExecutionListener> listeners = new ArrayList<>(List.of(collector));
            if (junitXmlDir != null)
                listeners.add(new LegacyXmlReportGeneratingListener(junitXmlDir, new PrintWriter(System.err, true)));
            if (progress != null)
                progress.println("worker logs: " + KitSuite.logDir().toAbsolutePath());
            Instant started = Instant.now();
            launcher.execute(request, listeners.toArray(TestExecutionListener[]::new));
            String b = collector.backend != null ? collector.backend : backend;
            var provider = BackendRegistry.load().providers().stream()
                    .filter(p -> p.name().equals(b))
                    .findFirst();
            if (!b.equals(backend))
                version = provider.map(p -> BackendRegistry.report(p))
                        .map(BackendReport::version)
                        .orElse("?");
            List<String> caps = provider.map(p ->
                            p.capabilities().stream().map(Enum::name).sorted().toList())
                    .orElse(List.of());
            int ranks = collector.ranks > 0 ? collector.ranks : KitSettings.getInt(KitSettings.RANKS, 2);
            Map<String, String> effective = new java.util.TreeMap<>();
            for (String k : KitSettings.ALL) {
                String v = KitSettings.get(k, null);
                if (v != null) effective.put(k, v);
            }
            synchronized (collector.settings) {
                effective.putAll(collector.settings); // what the suites' hooks used wins over what was asked for
            }
            effective.put(KitSettings.BACKEND, b);
            Provenance provenance = Provenance.of(effective, collector.jvmArgs);
            return new KitReport(
                    b,
                    version,
                    caps,
                    ranks,
                    started,
                    collector.entries,
                    KitSuite.logDir().toAbsolutePath().toString(),
                    provenance);
        } finally {
            saved.forEach((k, old) -> {
                if (old == null) System.clearProperty(k);
                else System.setProperty(k, old);
            });
        }
    }

    /** Turns JUnit's events into report entries: one per rule, plus one per suite whose set-up failed. */
    private static final class Collector implements TestExecutionListener {
        final List<KitReport.Entry> entries = Collections.synchronizedList(new ArrayList<>());
        private final Map<String, Long> startNanos = new ConcurrentHashMap<>();
        /** Each rule's algorithm line ({@link KitSuite#REPORT_ALGORITHMS}), by test id until the rule finishes. */
        private final Map<String, String> algorithms = new ConcurrentHashMap<>();

        private final PrintStream progress;
        volatile String backend;
        volatile int ranks;

        Collector(PrintStream progress) {
            this.progress = progress;
        }

        /** The hooks' effective settings, as the rules published them (a run of several suites keeps each differing value). */
        final Map<String, String> settings = new java.util.TreeMap<>();

        volatile List<String> jvmArgs = List.of();

        @Override
        public void reportingEntryPublished(TestIdentifier id, org.junit.platform.engine.reporting.ReportEntry entry) {
            Map<String, String> kv = entry.getKeyValuePairs();
            String ran = kv.get(KitSuite.REPORT_ALGORITHMS);
            if (ran != null) {
                algorithms.put(id.getUniqueId(), ran); // the rule's, not a setting of the run
                return;
            }
            String b = kv.get(KitSuite.REPORT_BACKEND);
            String r = kv.get(KitSuite.REPORT_RANKS);
            if (b != null) backend = b;
            if (r != null) ranks = Integer.parseInt(r);
            String jvm = kv.get(KitSuite.REPORT_JVM_ARGS);
            if (jvm != null) jvmArgs = List.of(jvm.split("\n"));
            synchronized (settings) {
                kv.forEach((k, v) -> {
                    if (k.equals(KitSuite.REPORT_JVM_ARGS) || k.equals(KitSuite.REPORT_BACKEND)) return;
                    String old = settings.get(k);
                    if (old == null) settings.put(k, v);
                    else if (!java.util.Arrays.asList(old.split(" \\| ")).contains(v)) settings.put(k, old + " | " + v);
                });
            }
        }

        @Override
        public void executionStarted(TestIdentifier id) {
            startNanos.put(id.getUniqueId(), System.nanoTime());
        }

        @Override
        public void executionSkipped(TestIdentifier id, String reason) {
            if (id.isTest()) add(id, KitReport.Result.SKIPPED, reason, Duration.ZERO);
        }

        @Override
        public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            Long t0 = startNanos.remove(id.getUniqueId());
            Duration time = t0 == null ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - t0);
            String reason = result.getThrowable()
                    .map(t -> String.valueOf(t.getMessage()))
                    .orElse("");
            KitReport.Result r =
                    switch (result.getStatus()) {
                        case SUCCESSFUL -> KitReport.Result.PASSED;
                        case ABORTED -> KitReport.Result.SKIPPED;
                        case FAILED -> KitReport.Result.FAILED;
                    };
            if (id.isTest()) {
                add(id, r, reason, time);
            } else if (r == KitReport.Result.FAILED && id.getSource().orElse(null) instanceof ClassSource cs) {
                entries.add(new KitReport.Entry(
                        cs.getJavaClass().getSimpleName(), "(suite set-up or tear-down)", r, reason, time));
                if (progress != null)
                    progress.println("FAILED   " + cs.getJavaClass().getSimpleName() + " set-up/tear-down: " + reason);
            }
        }

        private void add(TestIdentifier id, KitReport.Result r, String reason, Duration time) {
            String suite = "?", rule = id.getDisplayName(), clause = "";
            if (id.getSource().orElse(null) instanceof MethodSource ms) {
                suite = ms.getJavaClass().getSimpleName();
                rule = ms.getMethodName();
                Verifies v = ms.getJavaMethod().getAnnotation(Verifies.class);
                if (v != null) clause = v.value();
            }
            String ran = algorithms.remove(id.getUniqueId());
            entries.add(new KitReport.Entry(suite, rule, r, reason, time, clause, ran == null ? "" : ran));
            if (progress != null)
                progress.printf(
                        "%-8s %-48s %-6s %7.2fs%s%n",
                        r,
                        rule,
                        clause.isEmpty() ? "" : "\u00a7" + clause,
                        time.toMillis() / 1000.0,
                        reason.isEmpty()
                                ? ""
                                : "  " + reason.lines().findFirst().orElse(""));
        }
    }
}
