package dev.unicomm.conformance;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.function.Predicate;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.platform.commons.support.ReflectionSupport;

/**
 * The kit's suites, found by scanning rather than listed by hand, so that a new suite cannot be
 * forgotten by one of the two ways of running the kit: every abstract {@link KitSuite} of the kit
 * ({@link #abstractSuites()}) and their property-configured subclasses in
 * {@code dev.unicomm.conformance.configured} ({@link #configured()}), which {@code unicomm
 * conformance} runs. A configured suite annotated {@link OnlyWhenNamed} is left out of the default run.
 */
public final class KitSuites {
    private KitSuites() {}

    /** The package whose suites {@code unicomm conformance} runs. */
    public static final String CONFIGURED_PACKAGE = "dev.unicomm.conformance.configured";

    /** Every configured suite, default run first, each group by name. */
    public static List<Class<?>> configured() {
        List<Class<?>> all = scan(
                CONFIGURED_PACKAGE, c -> KitSuite.class.isAssignableFrom(c) && !Modifier.isAbstract(c.getModifiers()));
        all.sort(Comparator.comparing((Class<?> c) -> c.isAnnotationPresent(OnlyWhenNamed.class))
                .thenComparing(Class::getSimpleName));
        return all;
    }

    /** The configured suites of a default run (all but those marked {@link OnlyWhenNamed}). */
    public static List<Class<?>> defaultRun() {
        return configured().stream()
                .filter(c -> !c.isAnnotationPresent(OnlyWhenNamed.class))
                .toList();
    }

    /** Every abstract suite of the kit (what a backend's own JUnit subclasses extend). */
    public static List<Class<?>> abstractSuites() {
        List<Class<?>> all = scan(
                "dev.unicomm.conformance",
                c -> KitSuite.class.isAssignableFrom(c)
                        && c != KitSuite.class
                        && Modifier.isAbstract(c.getModifiers())
                        && !c.getPackageName().equals(CONFIGURED_PACKAGE));
        all.sort(Comparator.comparing(Class::getSimpleName));
        return all;
    }

    /** A suite's short name: {@code RmaRules} and {@code RmaSuite} are both {@code Rma}. */
    public static String shortName(Class<?> suite) {
        return suite.getSimpleName().replaceFirst("(Rules|Suite)$", "");
    }

    /**
     * The configured suite called {@code name} (case-insensitive, with or without a {@code Suite} or
     * {@code Rules} suffix, {@code Signal} or {@code Signals}).
     *
     * @throws IllegalArgumentException naming the known suites
     */
    public static Class<?> byName(String name) {
        String want = normal(name);
        return configured().stream()
                .filter(c -> normal(shortName(c)).equals(want))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("unknown suite '" + name + "'; suites: " + names()));
    }

    /** The short names of every configured suite, those run only when named marked so. */
    public static String names() {
        return String.join(
                ", ",
                configured().stream()
                        .map(c ->
                                shortName(c) + (c.isAnnotationPresent(OnlyWhenNamed.class) ? " (only when named)" : ""))
                        .toList());
    }

    /** The short names of the configured suites left out of the default run ({@link OnlyWhenNamed}), sorted. */
    public static List<String> onlyWhenNamed() {
        return configured().stream()
                .filter(c -> c.isAnnotationPresent(OnlyWhenNamed.class))
                .map(KitSuites::shortName)
                .sorted()
                .toList();
    }

    /** The abstract suites that no configured suite extends (must be empty; the kit's own tests check it). */
    public static List<Class<?>> unconfigured() {
        List<Class<?>> configured = configured();
        return abstractSuites().stream()
                .filter(a -> configured.stream().noneMatch(a::isAssignableFrom))
                .toList();
    }

    /**
     * The suites of the default run that none of {@code kitTest}'s nested classes extends: a backend's
     * kit test (one nested class per suite, its own or inherited from {@link dev.unicomm.conformance.kittest.CoreKitTest}) asserts this is empty so
     * that it cannot fall behind the kit.
     */
    public static List<String> missingFrom(Class<?> kitTest) {
        List<Class<?>> nested = new ArrayList<>();
        for (Class<?> c = kitTest; c != null; c = c.getSuperclass()) nested.addAll(List.of(c.getDeclaredClasses()));
        return defaultRun().stream()
                .map(Class::getSuperclass)
                .filter(s -> nested.stream().noneMatch(s::isAssignableFrom))
                .map(Class::getSimpleName)
                .toList();
    }

    private static final java.util.Map<Class<?>, java.util.Map<String, String>> ALGORITHMS =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** Records which algorithms a rule's calls ran (its {@link KitSuite} line), under its suite's {@link KitSuite#kitTest()}. */
    static void recordAlgorithms(Class<?> kitTest, String rule, String line) {
        ALGORITHMS
                .computeIfAbsent(kitTest, k -> new java.util.concurrent.ConcurrentHashMap<>())
                .put(rule, line);
    }

    /**
     * Which algorithms each rule of {@code kitTest}'s suites that ran in this JVM used, by rule id: the line the
     * report shows ({@code "allreduce/two_level=4, allreduce/inline=6"}, counts from
     * {@link dev.unicomm.api.Communicator#algorithmCounts()} on every rank). For a backend's kit test that checks
     * which paths its job took (an {@code @AfterAll} of the enclosing class).
     */
    public static java.util.Map<String, String> algorithms(Class<?> kitTest) {
        return java.util.Map.copyOf(ALGORITHMS.getOrDefault(kitTest, java.util.Map.of()));
    }

    private static final java.util.Map<Class<?>, java.util.concurrent.atomic.AtomicInteger> RULES_STARTED =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** Counts a rule that started in this JVM, under its suite's {@link KitSuite#kitTest()} (a backend's kit test). */
    static void countRule(Class<?> kitTest) {
        RULES_STARTED
                .computeIfAbsent(kitTest, k -> new java.util.concurrent.atomic.AtomicInteger())
                .incrementAndGet();
    }

    private static final java.util.Map<Class<?>, String> GATED = new java.util.concurrent.ConcurrentHashMap<>();
    private static final java.util.Set<String> GATE_NOTICES = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * Records a suite its plug's gate skipped, under its {@link KitSuite#kitTest()}, and prints one console line per
     * reason and JVM (test reports show skip counts, not reasons).
     */
    static void countGated(Class<?> kitTest, String why) {
        GATED.putIfAbsent(kitTest, why);
        if (GATE_NOTICES.add(why)) System.out.println("[unicomm kit] conformance rules SKIPPED: " + why);
    }

    /** Rules of {@code kitTest}'s nested suites that started in this JVM so far. */
    public static int rulesStarted(Class<?> kitTest) {
        var n = RULES_STARTED.get(kitTest);
        return n == null ? 0 : n.get();
    }

    /**
     * The kit's JUnit entry check, for a backend's kit test's {@code @AfterAll}: fails when none of the
     * rules of its nested suites ran in this JVM and its plug's gate did not skip them — a build whose test plugin did not find them (an old
     * surefire without the JUnit Platform, an exclude pattern, a filter) must not pass as if the kit had.
     */
    public static void assertRulesRan(Class<?> kitTest) {
        // a kit test its plug's gate skipped (no device here) ran nothing, and said why on every suite and the console
        if (rulesStarted(kitTest) == 0 && !GATED.containsKey(kitTest))
            throw new org.opentest4j.AssertionFailedError(
                    "no conformance rule of " + kitTest.getSimpleName() + "'s nested suites ran:"
                            + " the test run did not execute the kit (use maven-surefire-plugin 3.x, which runs JUnit 5 @Nested classes,"
                            + " and check test filters); a run of no rules certifies nothing");
    }

    /** The rule ids (test methods named {@code required_...} / {@code optional_...}) of a suite, its superclasses' included. */
    public static List<String> rules(Class<?> suite) {
        List<String> out = new ArrayList<>();
        for (Class<?> c = suite; c != null && c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (m.isAnnotationPresent(Test.class) && !out.contains(m.getName())) out.add(m.getName());
            }
        }
        out.sort(null);
        return out;
    }

    private static String normal(String s) {
        String n = s.trim().toLowerCase(Locale.ROOT).replaceFirst("(rules|suite)$", "");
        return n.endsWith("s") ? n.substring(0, n.length() - 1) : n;
    }

    /**
     * Classes of {@code pkg} read from the kit's own jar or folder. JUnit's scanner opens jars through the
     * zip file system (module jdk.zipfs), which a jlinked runtime may lack; it then finds nothing, silently.
     */
    static List<Class<?>> fromOwnCodeSource(String pkg, Predicate<Class<?>> keep) {
        String prefix = pkg.replace('.', '/') + '/';
        List<String> names = new ArrayList<>();
        try {
            Path where = Path.of(KitSuites.class
                    .getProtectionDomain()
                    .getCodeSource()
                    .getLocation()
                    .toURI());
            if (Files.isDirectory(where)) {
                try (Stream<Path> files = Files.walk(where.resolve(prefix))) {
                    files.map(f -> where.relativize(f).toString().replace('\\', '/'))
                            .forEach(names::add);
                }
            } else {
                try (JarFile jar = new JarFile(where.toFile())) {
                    jar.stream().map(JarEntry::getName).forEach(names::add);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the kit's classes to find its suites", e);
        } catch (URISyntaxException | RuntimeException e) {
            return List.of(); // no file-based code source: nothing more to try
        }
        List<Class<?>> out = new ArrayList<>();
        for (String n : names) {
            if (!n.startsWith(prefix) || !n.endsWith(".class") || n.contains("$")) continue;
            try {
                Class<?> c = Class.forName(
                        n.substring(0, n.length() - 6).replace('/', '.'), false, KitSuites.class.getClassLoader());
                if (keep.test(c)) out.add(c);
            } catch (ClassNotFoundException | LinkageError e) {
                // not loadable from here: skipped, as JUnit's scanner does
            }
        }
        return out;
    }

    /** Classes of {@code pkg} and its sub-packages: from the class path, else from the kit's named module, else its own jar. */
    private static List<Class<?>> scan(String pkg, Predicate<Class<?>> keep) {
        List<Class<?>> found = new ArrayList<>(ReflectionSupport.findAllClassesInPackage(pkg, keep, n -> true));
        Module m = KitSuites.class.getModule();
        if (found.isEmpty() && m.isNamed())
            found.addAll(ReflectionSupport.findAllClassesInModule(
                    m.getName(), c -> c.getPackageName().startsWith(pkg) && keep.test(c), n -> true));
        if (found.isEmpty()) found.addAll(fromOwnCodeSource(pkg, keep));
        if (found.isEmpty())
            throw new IllegalStateException("no kit suites found in package " + pkg + " (class loader "
                    + KitSuites.class.getClassLoader() + "): is the conformance-tests jar on the class path?");
        return found;
    }
}
