package dev.unicomm.conformance;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Everything a backend's kit test says about its backend, in one object: which backend, how many ranks,
 * its timeouts, heap and worker environment, where it may be skipped (the hardware gate) and which rules it
 * cannot run (untested, with the reason). A kit test declares it once, as a {@code static final KitPlug}
 * field of its class; its nested suite classes find it there and need no body:
 *
 * <pre>{@code
 * class VendorXKitTest {
 *     static final KitPlug PLUG = KitPlug.backend("vendorx").ranks(2);
 *     @Nested class Rma extends RmaSuite {}
 *     @Nested class Heap extends HeapSuite {}
 * }
 * }</pre>
 *
 * <p>The kit owns the gate: with {@link #skipWhereUnavailable} every rule of a suite is skipped, with the
 * provider's own cause and fix, where the backend reports itself unavailable (no device), and one line per
 * JVM says so on the console; without it an unavailable backend fails every rule. An {@linkplain #untested
 * untested} rule is skipped with its reason, and a report holding one is a {@code PARTIAL_RUN}: the plug
 * says what the backend cannot run, it cannot make the kit claim it. Values the plug leaves unset come from
 * {@link KitSettings}; a suite's own hook override still wins (one suite needing one more setting).
 * A plug is immutable; each method returns a changed copy ({@code PLUG.ranks(4)} for a second size).
 */
public final class KitPlug {
    private final String backend;
    private final Integer ranks;
    private final Duration timeout;
    private final Long heapSize;
    private final Supplier<Map<String, String>> environment;
    private final boolean gated;
    private final String requireVariable;
    private final String howToRun;
    private final Map<String, String> untested;
    private final Supplier<WorkerPlacement> placement;

    private KitPlug(
            String backend,
            Integer ranks,
            Duration timeout,
            Long heapSize,
            Supplier<Map<String, String>> environment,
            boolean gated,
            String requireVariable,
            String howToRun,
            Map<String, String> untested,
            Supplier<WorkerPlacement> placement) {
        this.placement = placement;
        this.backend = backend;
        this.ranks = ranks;
        this.timeout = timeout;
        this.heapSize = heapSize;
        this.environment = environment;
        this.gated = gated;
        this.requireVariable = requireVariable;
        this.howToRun = howToRun;
        this.untested = Map.copyOf(untested);
    }

    /** A plug for the backend whose provider's {@code name()} is {@code name}. */
    public static KitPlug backend(String name) {
        if (name == null || name.isBlank()) throw new IllegalArgumentException("a kit plug needs a backend name");
        return new KitPlug(name, null, null, null, null, false, null, null, Map.of(), null);
    }

    /** Ranks (worker JVMs) of each suite's job. */
    public KitPlug ranks(int n) {
        if (n < 1) throw new IllegalArgumentException("ranks must be at least 1, got " + n);
        return new KitPlug(
                backend, n, timeout, heapSize, environment, gated, requireVariable, howToRun, untested, placement);
    }

    /** Timeout of every wait inside the workers' communicators (the rule and start limits follow from it). */
    public KitPlug timeout(Duration d) {
        if (d == null || d.isNegative() || d.isZero())
            throw new IllegalArgumentException("timeout must be positive, got " + d);
        return new KitPlug(
                backend, ranks, d, heapSize, environment, gated, requireVariable, howToRun, untested, placement);
    }

    /** Symmetric heap bytes per PE. */
    public KitPlug heapSize(long bytes) {
        if (bytes <= 0) throw new IllegalArgumentException("heap size must be positive, got " + bytes);
        return new KitPlug(
                backend, ranks, timeout, bytes, environment, gated, requireVariable, howToRun, untested, placement);
    }

    /** Extra environment variables of the workers (backend options). */
    public KitPlug workerEnvironment(Map<String, String> env) {
        Map<String, String> copy = Map.copyOf(env);
        return workerEnvironment(() -> copy);
    }

    /** Extra environment variables of the workers, computed when a suite's job starts (may throw to fail the suite with a reason). */
    public KitPlug workerEnvironment(Supplier<Map<String, String>> env) {
        return new KitPlug(
                backend,
                ranks,
                timeout,
                heapSize,
                Objects.requireNonNull(env),
                gated,
                requireVariable,
                howToRun,
                untested,
                placement);
    }

    /**
     * The hardware gate: where the backend's provider reports itself unavailable, every rule is skipped with
     * the provider's cause and fix instead of failing. {@code requireVariable} (may be null) names an
     * environment variable that, when set, makes an unavailable backend a failure (a CI job that must run
     * it); {@code howToRun} (may be null) is added to the console notice (where the rules do run).
     */
    public KitPlug skipWhereUnavailable(String requireVariable, String howToRun) {
        return new KitPlug(
                backend, ranks, timeout, heapSize, environment, true, requireVariable, howToRun, untested, placement);
    }

    /**
     * Rules this backend cannot run, each skipped as {@value Untested#PREFIX}{@code <backend>: <reason>}.
     * Every name must be a rule of the kit (checked when a suite starts, so a renamed rule fails loudly).
     */
    public KitPlug untested(String reason, String... rules) {
        if (reason == null || reason.isBlank()) throw new IllegalArgumentException("an untested rule needs its reason");
        Map<String, String> more = new LinkedHashMap<>(untested);
        for (String r : rules) more.put(r, reason);
        return new KitPlug(
                backend, ranks, timeout, heapSize, environment, gated, requireVariable, howToRun, more, placement);
    }

    /**
     * Where each rank's worker runs ({@link WorkerPlacement}: a command prefix per host, e.g. {@code ssh nodeX}),
     * computed when a suite's job starts, so it may depend on hosts a test sets up first; without it every
     * worker runs on this host.
     */
    public KitPlug placement(Supplier<WorkerPlacement> where) {
        return new KitPlug(
                backend,
                ranks,
                timeout,
                heapSize,
                environment,
                gated,
                requireVariable,
                howToRun,
                untested,
                Objects.requireNonNull(where));
    }

    /** The plug's placement now, or null (every worker on this host). */
    public WorkerPlacement placement() {
        return placement == null ? null : placement.get();
    }

    public String backend() {
        return backend;
    }

    public Optional<Integer> ranks() {
        return Optional.ofNullable(ranks);
    }

    public Optional<Duration> timeout() {
        return Optional.ofNullable(timeout);
    }

    public Optional<Long> heapSize() {
        return Optional.ofNullable(heapSize);
    }

    /** The workers' extra environment (empty if the plug sets none). */
    public Map<String, String> workerEnvironment() {
        return environment == null ? Map.of() : environment.get();
    }

    /** Whether the kit skips this backend's rules where it is unavailable. */
    public boolean gated() {
        return gated;
    }

    /** The variable that turns the gate's skip into a failure, if any. */
    public Optional<String> requireVariable() {
        return Optional.ofNullable(requireVariable);
    }

    /** Where the gated rules do run, for the console notice, if said. */
    public Optional<String> howToRun() {
        return Optional.ofNullable(howToRun);
    }

    /** Rule id -> why this backend cannot run it. */
    public Map<String, String> untested() {
        return untested;
    }

    /** The untested rule ids that are no rule of the kit (must be empty). */
    List<String> unknownUntestedRules() {
        if (untested.isEmpty()) return List.of();
        List<String> known = KitSuites.abstractSuites().stream()
                .flatMap(s -> KitSuites.rules(s).stream())
                .toList();
        List<String> unknown = new ArrayList<>(untested.keySet());
        unknown.removeAll(known);
        unknown.sort(null);
        return unknown;
    }

    /**
     * The plug of a suite class: a {@code static} field of type {@code KitPlug} of the class itself or of a
     * class enclosing it (the backend's kit test), nearest first; empty when there is none (the configured
     * suites of {@code unicomm conformance}, which read {@link KitSettings}).
     *
     * @throws IllegalStateException when one class declares more than one, or the field is null
     */
    static Optional<KitPlug> of(Class<?> suite) {
        for (Class<?> c = suite; c != null; c = c.getEnclosingClass()) {
            List<Field> plugs = new ArrayList<>();
            for (Field f : c.getDeclaredFields())
                if (Modifier.isStatic(f.getModifiers()) && f.getType() == KitPlug.class) plugs.add(f);
            if (plugs.size() > 1)
                throw new IllegalStateException(c.getName() + " declares " + plugs.size() + " KitPlug fields ("
                        + plugs.stream().map(Field::getName).toList() + "): a kit test has one plug");
            if (plugs.size() == 1) {
                try {
                    Field f = plugs.getFirst();
                    f.setAccessible(true);
                    KitPlug p = (KitPlug) f.get(null);
                    if (p == null) throw new IllegalStateException(c.getName() + "." + f.getName() + " is null");
                    return Optional.of(p);
                } catch (IllegalAccessException | RuntimeException e) {
                    if (e instanceof IllegalStateException ise) throw ise;
                    throw new IllegalStateException("cannot read the KitPlug of " + c.getName() + ": " + e, e);
                }
            }
        }
        return Optional.empty();
    }

    @Override
    public String toString() {
        return "KitPlug[" + backend + (ranks == null ? "" : ", " + ranks + " ranks") + (gated ? ", gated" : "")
                + (untested.isEmpty() ? "" : ", " + untested.size() + " untested") + "]";
    }

    /** The skip of a rule a plug marks untested. */
    public static final class Untested extends org.opentest4j.TestAbortedException {
        private static final long serialVersionUID = 1L;

        /** How the reason of an untested rule begins (the report recognises it). */
        public static final String PREFIX = "untested on backend ";

        Untested(String backend, String reason) {
            super(PREFIX + backend + ": " + reason);
        }
    }
}
