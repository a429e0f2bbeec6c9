package dev.unicomm.conformance;

import dev.unicomm.api.BackendReport;
import dev.unicomm.api.Capability;
import dev.unicomm.spi.BackendRegistry;
import dev.unicomm.spi.CommBackendProvider;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.TestReporter;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestInstancePostProcessor;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/**
 * Base of every kit suite. A suite is an abstract class of JUnit tests, one per rule, each named
 * {@code required_<area>_<what>} or {@code optional_<area>_<what>}; the name is the rule id. A test
 * calls {@link #spmd(Body)} (required rules) or {@link #spmd(Capability, Body)} (optional rules,
 * skipped with the reason when the backend does not declare the capability) and the body then runs
 * on every rank of a real multi-process job: {@link #ranks()} worker JVMs, started once per suite
 * (before its first rule, through the shared job launcher) and reused by all of its rules; after a
 * rule that hung, lost a rank or failed leaving the job unfit (see {@link WorkerGroup}), the next rule
 * gets a fresh job. Start-up has its own deadline ({@link #timeout()} + 60 s), apart from the rules'.
 *
 * <p>Hooks, one per concern; each defaults to the backend's {@link KitPlug} (a static field of the
 * enclosing kit test) where it sets one, else to a {@link KitSettings} property, so a backend's subclass
 * is empty; a subclass may still override one:
 * {@link #backend()}, {@link #ranks()}, {@link #timeout()}, {@link #ruleTimeout()},
 * {@link #heapSize()}, {@link #workerJvmArgs()}, {@link #workerEnvironment()}, {@link #repeat()}.
 * The kit evaluates the plug's gate and untested rules itself ({@link KitPlug}).
 *
 * <p>A backend's kit test (one nested class per suite) calls {@link KitSuites#missingFrom} in a test and
 * {@link KitSuites#assertRulesRan} in an {@code @AfterAll}, so that it neither falls behind the kit nor
 * passes without running it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.MethodName.class)
@ExtendWith(KitSuite.FindKitTest.class)
public abstract class KitSuite {
    private WorkerGroup group;
    /** What every rule of this suite throws when the plug's gate closed (a skip, or a failure when required); null when open. */
    private Throwable gate;

    private RuntimeException startFailure;
    private BackendReport report;
    private String rule = "?";
    private TestReporter reporter;
    private int generation;

    // ---- hooks -------------------------------------------------------------------------------

    private java.util.Optional<KitPlug> plug;
    /** The test class JUnit ran this nested suite in; null for a suite run on its own. */
    private Class<?> runIn;

    /**
     * The backend's plug: a static {@link KitPlug} field of this class or of a class enclosing it, else of the
     * kit test it ran in ({@link dev.unicomm.conformance.kittest.CoreKitTest}'s nested suites are declared there, run in a backend's subclass); empty if none.
     */
    protected final java.util.Optional<KitPlug> plug() {
        if (plug == null) plug = KitPlug.of(getClass()).or(() -> KitPlug.of(kitTest()));
        return plug;
    }

    /**
     * The kit test whose rules these are (for {@link KitSuites#assertRulesRan} and {@link KitSuites#algorithms}): the
     * class JUnit ran this suite nested in, which for a suite inherited from {@link dev.unicomm.conformance.kittest.CoreKitTest} is the backend's
     * subclass, not the declaring class; else the class enclosing it; else the suite itself.
     */
    final Class<?> kitTest() {
        if (runIn != null) return runIn;
        return getClass().getEnclosingClass() != null ? getClass().getEnclosingClass() : getClass();
    }

    /** Remembers the test class a nested suite runs in (JUnit's parent context), before the suite's job starts. */
    static final class FindKitTest implements TestInstancePostProcessor {
        @Override
        public void postProcessTestInstance(Object suite, ExtensionContext context) {
            ((KitSuite) suite).runIn =
                    context.getParent().flatMap(ExtensionContext::getTestClass).orElse(null);
        }
    }

    /** Name of the backend under test (as its provider's {@code name()}). */
    protected String backend() {
        if (plug().isPresent()) return plug().get().backend();
        String b = KitSettings.get(KitSettings.BACKEND, null);
        if (b == null)
            throw new IllegalStateException("no backend to test: declare a static KitPlug in "
                    + getClass().getName().replace('$', '.') + "'s kit test, override backend(), or set -D"
                    + KitSettings.BACKEND
                    + " / UNICOMM_KIT_BACKEND");
        return b;
    }

    /** Number of ranks (worker JVMs) of this suite's job. */
    protected int ranks() {
        return plug().flatMap(KitPlug::ranks).orElseGet(() -> KitSettings.getInt(KitSettings.RANKS, 2));
    }

    /** Timeout of every wait inside the workers' communicators. */
    protected Duration timeout() {
        return plug().flatMap(KitPlug::timeout)
                .orElseGet(() -> KitSettings.getDuration(KitSettings.TIMEOUT, Duration.ofSeconds(30)));
    }

    /** How long one rule may take on all ranks before the parent kills the job and fails the rule. */
    protected Duration ruleTimeout() {
        return KitSettings.getDuration(
                KitSettings.RULE_TIMEOUT, timeout().multipliedBy(2).plusSeconds(10));
    }

    /**
     * How long a suite's job may take to start: its own limit, apart from the rules', so that a slow
     * start on a loaded or emulated machine (the soft-RoCE VM under TCG) can be given room.
     */
    protected Duration startTimeout() {
        return KitSettings.getDuration(KitSettings.START_TIMEOUT, timeout().plusSeconds(60));
    }

    /** Symmetric heap bytes per PE. */
    protected long heapSize() {
        return plug().flatMap(KitPlug::heapSize)
                .orElseGet(() ->
                        dev.unicomm.api.ByteSize.parse(KitSettings.HEAP, KitSettings.get(KitSettings.HEAP, "64M")));
    }

    /** JVM options of the workers (defaults favour start-up time). */
    protected List<String> workerJvmArgs() {
        List<String> args = new ArrayList<>(List.of(
                "--enable-native-access=ALL-UNNAMED",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Xss1m",
                "-Xmx256m"));
        String extra = KitSettings.get(KitSettings.JVM_ARGS, "");
        if (!extra.isBlank()) args.addAll(Arrays.asList(extra.trim().split("\\s+")));
        return args;
    }

    /** Extra environment variables of the workers (backend options such as {@code UNICOMM_SHM_...}). */
    protected Map<String, String> workerEnvironment() {
        return plug().map(KitPlug::workerEnvironment).orElse(Map.of());
    }

    /**
     * Where the workers run: {@code null} (the default) starts every rank on this host through the shared job
     * launcher; a {@link WorkerPlacement} starts each rank on its host through the placement's command (a job
     * across hosts; the control channel is then each worker's standard input and output).
     */
    protected WorkerPlacement placement() {
        return plug().map(KitPlug::placement).orElse(null);
    }

    /** Whether workers open the suite's communicator at start ({@link Pe#comm()}); the harness's own tests say no. */
    protected boolean connectAtStart() {
        return true;
    }

    // ---- what rules call ---------------------------------------------------------------------

    /** Runs a required rule's body on every rank; fails naming the ranks and their messages. */
    protected final List<RankResult> spmd(Body body) {
        if (!rule.startsWith("required_"))
            throw new IllegalStateException("rule " + rule + ": only rules named required_... may call spmd(body); "
                    + "optional rules name the capability they need with spmd(capability, body)");
        return execute(body, -1);
    }

    /** Runs an optional rule's body on every rank, or skips it when the backend lacks {@code needed}. */
    protected final List<RankResult> spmd(Capability needed, Body body) {
        if (!rule.startsWith("optional_"))
            throw new IllegalStateException(
                    "rule " + rule + ": only rules named optional_... may depend on a capability");
        assumeCapability(needed);
        return execute(body, -1);
    }

    /**
     * Runs a fault rule: {@code victim}'s worker must die while running {@code body} (the body kills
     * it, see {@link Faults}), and every other rank must pass. The job is restarted afterwards.
     */
    protected final List<RankResult> spmdKilling(int victim, Body body) {
        if (!rule.startsWith("required_") && !rule.startsWith("optional_"))
            throw new IllegalStateException("rule " + rule + ": rule names start with required_ or optional_");
        return execute(body, victim);
    }

    /** Skips the current (optional) rule when the backend does not declare {@code needed}; required rules cannot be skipped. */
    protected final void assumeCapability(Capability needed) {
        if (!rule.startsWith("optional_"))
            throw new IllegalStateException(
                    "rule " + rule + ": only rules named optional_... may depend on a capability");
        Set<Capability> caps = capabilities();
        Assumptions.assumeTrue(
                caps.contains(needed),
                () -> "backend '" + backend() + "' does not declare " + needed + " (it declares "
                        + caps.stream().map(Enum::name).sorted().collect(Collectors.joining(", ")) + ")");
    }

    /**
     * Marks the current rule not applicable when the job has fewer than {@code n} ranks (its check would
     * be empty: a team of one, no third PE). The report counts such a rule as not run at this size, so the
     * certification cannot claim it ({@link KitReport.Certification#REQUIRED_AT_THIS_SIZE_ONLY}).
     */
    protected final void assumeRanks(int n) {
        NotApplicable.unlessRanks(ranks(), n, "rule " + rule + " (set " + KitSettings.RANKS + " to " + n + " or more)");
    }

    /** The capabilities the backend's provider declares. */
    protected final Set<Capability> capabilities() {
        return report().capabilities();
    }

    /** The id of the rule running now. */
    protected final String rule() {
        return rule;
    }

    /** Every rank's {@linkplain Pe#report reported} value, in rank order. */
    protected static List<String> values(List<RankResult> results) {
        return results.stream().map(RankResult::value).toList();
    }

    /** Fails unless every rank reported the same value. */
    protected final void assertSameOnAllRanks(String what, List<RankResult> results) {
        List<String> v = values(results);
        if (v.stream().distinct().count() != 1)
            throw new AssertionFailedError("rule " + rule + ": " + what + " differs across ranks: "
                    + results.stream()
                            .map(x -> "rank " + x.rank() + "=" + x.value())
                            .collect(Collectors.joining(", ")));
    }

    // ---- machinery ---------------------------------------------------------------------------

    /** Report-entry keys each rule publishes, so runners can label their reports. */
    static final String REPORT_BACKEND = "unicomm.kit.backend", REPORT_RANKS = "unicomm.kit.ranks";
    /** Report-entry key of the workers' JVM options, one per line (the other settings use their {@link KitSettings} names). */
    static final String REPORT_JVM_ARGS = "unicomm.kit.jvm.args.lines";
    /** Report-entry key of the rule's calls by algorithm ({@link #algorithmsLine}); the report keeps it with the rule. */
    static final String REPORT_ALGORITHMS = "unicomm.kit.rule.algorithms";
    /** Report-entry key of which ranks shared a host, as the workers' communicators saw it. */
    static final String REPORT_TOPOLOGY = "unicomm.kit.topology";
    /** Report-entry key of where the workers ran, when a {@link #placement()} put them on hosts. */
    static final String REPORT_PLACEMENT = "unicomm.kit.placement";

    /** "rank 0 on node0, rank 1 on node0, ... (stores at ADDRESS)": the report's record of a run across hosts. */
    static String placementLine(WorkerPlacement where, int ranks) {
        StringBuilder b = new StringBuilder();
        for (int r = 0; r < ranks; r++)
            b.append(r == 0 ? "" : ", ")
                    .append("rank ")
                    .append(r)
                    .append(" on ")
                    .append(where.host(r));
        return b.append(" (rendezvous at ")
                .append(where.rankZeroAddress())
                .append(')')
                .toString();
    }

    /** Starts the suite's job once, before its first rule; a failure to start is reported by every rule. */
    @BeforeAll
    final void startWorkers() {
        gate = passTheGate();
        if (gate != null) return; // no job: every rule is skipped (or failed) with the gate's reason
        try {
            group();
        } catch (RuntimeException e) {
            // kept in startFailure: each rule fails with it, so the report shows the cause on every rule
        }
    }

    @BeforeEach
    final void rememberRule(TestInfo info, TestReporter reporter) {
        rule = info.getTestMethod().map(m -> m.getName()).orElse(info.getDisplayName());
        this.reporter = reporter;
        if (gate instanceof RuntimeException e) throw e;
        if (gate instanceof Error e) throw e;
        String untested = plug().map(p -> p.untested().get(rule)).orElse(null);
        if (untested != null) throw new KitPlug.Untested(backend(), untested);
        KitSuites.countRule(kitTest());
        // the hooks' effective values, which a subclass may hard-wire: the report's provenance names them
        reporter.publishEntry(Map.of(
                REPORT_BACKEND,
                backend(),
                REPORT_RANKS,
                Integer.toString(ranks()),
                KitSettings.TIMEOUT,
                timeout().toString(),
                KitSettings.RULE_TIMEOUT,
                ruleTimeout().toString(),
                KitSettings.START_TIMEOUT,
                startTimeout().toString(),
                KitSettings.HEAP,
                Long.toString(heapSize()),
                KitSettings.REPEAT,
                Integer.toString(repeat()),
                REPORT_JVM_ARGS,
                String.join("\n", workerJvmArgs())));
        WorkerPlacement where = placement();
        if (where != null) reporter.publishEntry(REPORT_PLACEMENT, placementLine(where, ranks()));
    }

    /**
     * How many times each rule runs its body in a row ({@link KitSettings#REPEAT}, default 1). A rule
     * fails when any run fails, and says in how many: a rule must fail every time on a backend that
     * breaks its clause, and repeating it is how the kit's own tests and a vendor hunting a flaky
     * failure show that.
     */
    protected int repeat() {
        return Math.max(1, KitSettings.getInt(KitSettings.REPEAT, 1));
    }

    /**
     * The plug's checks, before the suite's job starts: its untested rules must be rules of the kit; where
     * the plug gates the backend and its provider reports itself unavailable, the whole suite is skipped
     * with the provider's cause and fix (a failure when the plug's require variable is set).
     */
    private Throwable passTheGate() {
        if (plug().isEmpty()) return null;
        KitPlug p = plug().get();
        List<String> unknown = p.unknownUntestedRules();
        if (!unknown.isEmpty())
            startFailure = new IllegalStateException(
                    "the kit plug of backend " + p.backend() + " marks rules untested that the kit" + " does not have: "
                            + unknown + " (renamed or removed? see the kit's rule list)");
        if (!p.gated()) return null;
        BackendReport r;
        try {
            r = BackendRegistry.report(provider());
        } catch (RuntimeException e) {
            return e; // not on the class path: every rule fails with it
        }
        if (r.available()) return null;
        String why = "backend " + p.backend() + " is not available here: " + r.cause()
                + (r.fix().isBlank() ? "" : " (fix: " + r.fix() + ")");
        if (p.requireVariable().map(System::getenv).isPresent())
            return new AssertionFailedError(p.requireVariable().get() + " is set, but " + why);
        KitSuites.countGated(kitTest(), why + p.howToRun().map(h -> "; " + h).orElse(""));
        return new TestAbortedException(why);
    }

    private List<RankResult> execute(Body body, int victim) {
        int runs = repeat();
        int failedRuns = 0;
        AssertionFailedError first = null;
        List<RankResult> last = List.of();
        for (int run = 0; run < runs; run++) {
            List<RankResult> results = group().run(rule, body, ruleTimeout());
            if (run == runs - 1) recordAlgorithms(results);
            if (results.stream().allMatch(r -> r.outcome() == Outcome.SKIPPED))
                throw new TestAbortedException(results.getFirst().message());
            try {
                last = judge(results, victim);
            } catch (AssertionFailedError e) {
                failedRuns++;
                if (first == null) first = e;
            }
        }
        if (first == null) return last;
        if (runs == 1) throw first;
        String msg = first.getMessage();
        int nl = msg.indexOf('\n');
        String tally = " [failed in " + failedRuns + " of " + runs + " runs]";
        throw new AssertionFailedError(nl < 0 ? msg + tally : msg.substring(0, nl) + tally + msg.substring(nl));
    }

    /**
     * Publishes which algorithms the rule's collective and MoE calls ran ({@link dev.unicomm.api.Communicator#algorithmCounts()}
     * on every rank) and the job's topology, for the report and for {@link KitSuites#algorithms}.
     */
    private void recordAlgorithms(List<RankResult> results) {
        String line = algorithmsLine(results);
        KitSuites.recordAlgorithms(kitTest(), rule, line);
        if (reporter == null) return;
        if (!line.isEmpty()) reporter.publishEntry(REPORT_ALGORITHMS, line);
        results.stream()
                .map(RankResult::topology)
                .filter(t -> !t.isEmpty())
                .findFirst()
                .ifPresent(t -> reporter.publishEntry(REPORT_TOPOLOGY, t));
    }

    /**
     * The ranks' algorithm counts as one line: the counts alone where every rank that reported ran the same
     * ({@code "allreduce/two_level=4"}), else per group of ranks ({@code "ranks 0,1: ...; ranks 2,3: ..."}); "" if none reported.
     */
    static String algorithmsLine(List<RankResult> results) {
        java.util.Map<String, List<Integer>> byLine = new java.util.LinkedHashMap<>();
        for (RankResult r : results) {
            if (r.outcome() == Outcome.PASSED || r.outcome() == Outcome.FAILED || r.outcome() == Outcome.SKIPPED)
                byLine.computeIfAbsent(r.algorithms(), k -> new ArrayList<>()).add(r.rank());
        }
        if (byLine.size() == 1) return byLine.keySet().iterator().next();
        return byLine.entrySet().stream()
                .map(e -> (e.getValue().size() == 1 ? "rank " : "ranks ")
                        + e.getValue().stream().map(String::valueOf).collect(Collectors.joining(",")) + ": "
                        + (e.getKey().isEmpty() ? "none" : e.getKey()))
                .collect(Collectors.joining("; "));
    }

    /** The results of one run, or a failure naming the ranks that did not pass (the victim must have died). */
    private List<RankResult> judge(List<RankResult> results, int victim) {
        List<RankResult> bad = new ArrayList<>();
        for (RankResult r : results) {
            if (r.rank() == victim) {
                if (r.outcome() != Outcome.DIED)
                    bad.add(new RankResult(
                            r.rank(),
                            Outcome.FAILED,
                            "was meant to be killed by the rule but finished " + r.outcome()
                                    + (r.message().isEmpty() ? "" : ": " + r.message()),
                            r.value(),
                            r.time()));
            } else if (r.outcome() != Outcome.PASSED && r.outcome() != Outcome.SKIPPED) {
                bad.add(r);
            }
        }
        if (!bad.isEmpty()) {
            // first line: the first failing rank's cause, so one-line views (progress, table) show why
            RankResult first = bad.getFirst();
            String cause = "rank " + first.rank() + " " + first.outcome()
                    + (first.message().isEmpty()
                            ? ""
                            : ": " + first.message().lines().findFirst().orElse(""))
                    + (bad.size() > 1 ? " (and " + (bad.size() - 1) + " more)" : "");
            throw new AssertionFailedError(
                    cause + "\nrule " + rule + " failed on " + (bad.size() == 1 ? "rank " : "ranks ")
                            + bad.stream().map(r -> Integer.toString(r.rank())).collect(Collectors.joining(", "))
                            + " of " + results.size() + " (backend " + backend() + "):\n  "
                            + bad.stream().map(RankResult::toString).collect(Collectors.joining("\n  ")));
        }
        return results;
    }

    private WorkerGroup group() {
        if (group != null && group.broken()) {
            group.close();
            group = null;
        }
        if (group == null) {
            // A job that failed to start is not started again for every rule: each rule reports that failure.
            if (startFailure != null)
                throw new IllegalStateException(
                        "the suite's job did not start: " + startFailure.getMessage(), startFailure);
            try {
                report();
                group = startJob();
            } catch (RuntimeException first) {
                // A job that started before but fails to restart is most likely a loaded machine (ranks' JVMs
                // starting far apart): one more attempt, so one slow start-up does not fail the rest of the suite.
                if (generation <= 1 || report == null) {
                    startFailure = first;
                    throw first;
                }
                try {
                    group = startJob();
                } catch (RuntimeException second) {
                    second.addSuppressed(first);
                    startFailure = second;
                    throw second;
                }
            }
        }
        return group;
    }

    /** Starts a fresh job; its start-up has its own deadline ({@link #startTimeout()}), apart from the rules' limit. */
    private WorkerGroup startJob() {
        generation++;
        String classPath = workerClassPath();
        try {
            return startJobOn(classPath);
        } catch (IllegalArgumentException e) {
            // the job launcher rejected what the kit built (class path, options): the kit's failure, not the backend's
            throw new KitToolException("the job launcher rejected the kit's worker job: " + e.getMessage(), e);
        }
    }

    private WorkerGroup startJobOn(String classPath) {
        return WorkerGroup.start(new WorkerGroup.Spec(
                getClass().getSimpleName() + "-" + ranks() + "r-" + generation,
                ranks(),
                backend(),
                timeout(),
                heapSize(),
                connectAtStart(),
                workerJvmArgs(),
                classPath,
                workerEnvironment(),
                logDir(),
                startTimeout(),
                placement()));
    }

    private BackendReport report() {
        if (report == null) {
            String name = backend();
            BackendReport r = BackendRegistry.report(provider());
            if (!r.available())
                throw new IllegalStateException("backend '" + name + "' is not available here: " + r.cause()
                        + (r.fix().isBlank() ? "" : " (fix: " + r.fix() + ")"));
            report = r;
        }
        return report;
    }

    private CommBackendProvider provider() {
        BackendRegistry registry = BackendRegistry.load();
        String name = backend();
        return registry.providers().stream()
                .filter(x -> x.name().equals(name))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("backend '" + name + "' is not on the class path; found: "
                        + registry.providers().stream()
                                .map(CommBackendProvider::name)
                                .sorted()
                                .toList()));
    }

    /**
     * The workers' class path: this JVM's, plus the URLs of class loaders between the context loader
     * and the application loader (launchers such as the JUnit console or {@code unicomm conformance
     * --classpath} load the suites there), plus {@link KitSettings#CLASSPATH}.
     */
    private static String workerClassPath() {
        java.util.LinkedHashSet<String> entries = new java.util.LinkedHashSet<>();
        for (ClassLoader l = Thread.currentThread().getContextClassLoader(); l != null; l = l.getParent()) {
            if (l instanceof java.net.URLClassLoader u) {
                for (java.net.URL url : u.getURLs()) {
                    try {
                        entries.add(Path.of(url.toURI()).toString());
                    } catch (java.net.URISyntaxException | IllegalArgumentException e) {
                        // not a local file: workers cannot use it
                    }
                }
            }
        }
        entries.addAll(Arrays.asList(System.getProperty("java.class.path", "").split(File.pathSeparator)));
        // on the module path (unicomm conformance run as modules) the jars are there: workers get them on their class
        // path
        entries.addAll(Arrays.asList(System.getProperty("jdk.module.path", "").split(File.pathSeparator)));
        String extra = KitSettings.get(KitSettings.CLASSPATH, "");
        if (!extra.isBlank()) entries.addAll(Arrays.asList(extra.split(File.pathSeparator)));
        entries.removeIf(String::isBlank);
        if (entries.isEmpty())
            throw new KitToolException(
                    "the kit found no class path or module path for its worker JVMs (java.class.path and"
                            + " jdk.module.path are empty; set " + KitSettings.CLASSPATH + ")");
        return String.join(File.pathSeparator, entries);
    }

    /** Where the worker JVMs' logs go: {@link KitSettings#LOGS}, else {@code target/unicomm-kit}, else a temporary folder. */
    static Path logDir() {
        String configured = KitSettings.get(KitSettings.LOGS, null);
        if (configured != null) return Path.of(configured);
        Path target = Path.of("target");
        return Files.isDirectory(target)
                ? target.resolve("unicomm-kit")
                : Path.of(
                        System.getProperty("java.io.tmpdir"),
                        "unicomm-kit-" + ProcessHandle.current().pid());
    }

    @AfterAll
    final void stopWorkers() {
        if (group != null) group.close();
        group = null;
    }
}
