package dev.unicomm.conformance.shm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.conformance.KitSuites;
import dev.unicomm.conformance.collectives.CollectivesSuite;
import dev.unicomm.conformance.configured.CollectivesRules;
import dev.unicomm.conformance.configured.FaultInjectionRules;
import dev.unicomm.conformance.configured.MoeRules;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.platform.engine.DiscoverySelector;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.TestPlan;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

/**
 * The kit's suite list cannot drift: suites are found by scanning, every abstract suite has a
 * configured twin (what {@code unicomm conformance} runs), and the JUnit path on shm
 * ({@link ShmTwoRanksTest}) discovers exactly the rules of the CLI's default run. Discovery only: no job starts.
 */
class KitCoverageTest {

    /**
     * The rule ids JUnit discovers for {@code selectors}, as suite-independent names (one per rule); a kit test's own
     * tests beside its suites ({@code coversEverySuite}) are not rules.
     */
    static List<String> discoveredRules(List<DiscoverySelector> selectors) {
        TestPlan plan = LauncherFactory.create()
                .discover(LauncherDiscoveryRequestBuilder.request()
                        .selectors(selectors)
                        .build());
        List<String> rules = new ArrayList<>();
        for (TestIdentifier root : plan.getRoots()) collect(plan, root, rules);
        rules.sort(null);
        return rules;
    }

    private static void collect(TestPlan plan, TestIdentifier id, List<String> out) {
        String name = id.getDisplayName().replace("()", "");
        if (id.isTest() && (name.startsWith("required_") || name.startsWith("optional_"))) out.add(name);
        for (TestIdentifier child : plan.getChildren(id)) collect(plan, child, out);
    }

    @Test
    void everyAbstractSuiteHasAConfiguredSuite() {
        assertEquals(
                List.of(),
                KitSuites.unconfigured().stream().map(Class::getSimpleName).toList(),
                "abstract suites without a class in " + KitSuites.CONFIGURED_PACKAGE
                        + " (unicomm conformance would not run them)");
        assertTrue(KitSuites.abstractSuites().size() >= 11, "suites found: " + KitSuites.abstractSuites());
    }

    @Test
    void theDefaultRunHasCollectivesAndMoeButNotFaultInjection() {
        List<Class<?>> run = KitSuites.defaultRun();
        assertTrue(run.contains(CollectivesRules.class) && run.contains(MoeRules.class), run.toString());
        assertTrue(!run.contains(FaultInjectionRules.class), run.toString());
        assertEquals(CollectivesRules.class, KitSuites.byName("Collectives"));
        assertEquals(CollectivesRules.class, KitSuites.byName("collectivessuite"));
        assertTrue(CollectivesSuite.class.isAssignableFrom(KitSuites.byName("collectives")));
    }

    @Test
    void ruleIdsAreUniqueAcrossSuites() {
        Set<String> seen = new HashSet<>();
        for (Class<?> s : KitSuites.configured())
            for (String r : KitSuites.rules(s)) assertTrue(seen.add(r), "rule id " + r + " is in two suites");
    }

    @Test
    void junitPathOnShmRunsTheSameRulesAsTheCli() {
        assertEquals(
                List.of(),
                KitSuites.missingFrom(ShmTwoRanksTest.class),
                "suites of the default run missing from ShmTwoRanksTest");
        List<String> cli = discoveredRules(KitSuites.defaultRun().stream()
                .map(c -> (DiscoverySelector) DiscoverySelectors.selectClass(c))
                .toList());
        List<String> junit = discoveredRules(List.of(DiscoverySelectors.selectClass(ShmTwoRanksTest.class)));
        assertEquals(cli.size(), junit.size(), "rule count: CLI default run vs ShmTwoRanksTest");
        assertEquals(cli, junit);
        int declared = KitSuites.defaultRun().stream()
                .mapToInt(c -> KitSuites.rules(c).size())
                .sum();
        assertEquals(declared, cli.size(), "every rule method is discovered");
        System.out.println("kit default run: " + cli.size() + " rules in "
                + KitSuites.defaultRun().size() + " suites (CLI and JUnit alike)");
    }

    @Test
    void everyRuleNamesAClauseOfTheSpecAndSaysWhatToLookAt() throws java.io.IOException {
        String spec = java.nio.file.Files.readString(java.nio.file.Path.of("../docs/spec/semantics.md"));
        Set<String> clauses = new HashSet<>();
        java.util.regex.Matcher m =
                java.util.regex.Pattern.compile("(?m)^- \\*\\*(\\d+\\.\\d+)").matcher(spec);
        while (m.find()) clauses.add(m.group(1));
        List<String> bad = new ArrayList<>();
        for (Class<?> suite : KitSuites.configured()) {
            for (String rule : KitSuites.rules(suite)) {
                java.lang.reflect.Method method = findRule(suite, rule);
                dev.unicomm.conformance.Verifies v = method.getAnnotation(dev.unicomm.conformance.Verifies.class);
                if (v == null) bad.add(rule + ": no @Verifies");
                else if (!clauses.contains(v.value()))
                    bad.add(rule + ": clause " + v.value() + " is not in docs/spec/semantics.md");
                String src = java.nio.file.Files.readString(java.nio.file.Path.of(
                        "src/main/java", method.getDeclaringClass().getName().replace('.', '/') + ".java"));
                int at = src.indexOf("void " + rule + "(");
                int doc = src.lastIndexOf("/**", at);
                int end = doc < 0 ? -1 : src.indexOf("*/", doc);
                String javadoc = doc < 0 ? "" : src.substring(doc, end);
                boolean attached = doc >= 0
                        && src.substring(end + 2, at).strip().matches("(@Verifies\\(\"[0-9.]+\"\\)\\s*)?@Test");
                if (!attached || !javadoc.contains("Verifies \u00a7") || !javadoc.contains("if it fails, look at"))
                    bad.add(rule + ": no javadoc \"Verifies \u00a7x.y ... / if it fails, look at ...\"");
            }
        }
        assertEquals(List.of(), bad);
    }

    private static java.lang.reflect.Method findRule(Class<?> suite, String rule) {
        for (Class<?> c = suite; c != null; c = c.getSuperclass()) {
            for (java.lang.reflect.Method x : c.getDeclaredMethods())
                if (x.getName().equals(rule)) return x;
        }
        throw new AssertionError(rule);
    }
}
