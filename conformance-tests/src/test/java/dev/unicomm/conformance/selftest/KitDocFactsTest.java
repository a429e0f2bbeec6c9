package dev.unicomm.conformance.selftest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.conformance.KitSuites;
import dev.unicomm.testsupport.ProseList;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** docs/conformance.md's counts of the default run and its list of suites run only when named are the kit's (they went stale once). */
class KitDocFactsTest {
    static final Path DOC = Path.of("").toAbsolutePath().getParent().resolve("docs/conformance.md");

    @Test
    void theDocsRuleCountsAreTheDefaultRuns() throws Exception {
        String doc = Files.readString(DOC).replaceAll("\\s+", " ");
        Matcher m = Pattern.compile(
                        "\\((\\d+) in the default run: (\\d+) required \\+ (\\d+) optional, over (\\d+) suites")
                .matcher(doc);
        assertTrue(
                m.find(),
                "docs/conformance.md no longer states the default run's size as '(N in the default run: R required + O optional, over S suites'");
        List<String> rules = KitSuites.defaultRun().stream()
                .flatMap(s -> KitSuites.rules(s).stream())
                .toList();
        long required = rules.stream().filter(r -> r.startsWith("required_")).count();
        long optional = rules.stream().filter(r -> r.startsWith("optional_")).count();
        assertEquals(
                rules.size() + " rules: " + required + " required + " + optional + " optional over "
                        + KitSuites.defaultRun().size() + " suites",
                m.group(1) + " rules: " + m.group(2) + " required + " + m.group(3) + " optional over " + m.group(4)
                        + " suites",
                "docs/conformance.md");
    }

    @Test
    void theDocNamesTheSuitesRunOnlyWhenNamed() throws Exception {
        String doc = Files.readString(DOC).replaceAll("\\s+", " ");
        Matcher m = Pattern.compile("; ([A-Za-z, and]+) only by name\\)").matcher(doc);
        assertTrue(m.find(), "docs/conformance.md no longer says which suites run only by name");
        assertEquals(KitSuites.onlyWhenNamed(), ProseList.sortedItems(m.group(1)), "docs/conformance.md");
    }
}
