package dev.unicomm.architecture.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every availability fix text that points at {@code docs/troubleshooting.md} (the backends append
 * {@code see("anchor")} or the full link) names a section that exists, so a user who follows the
 * pointer printed by {@code unicomm info} or a {@code BackendUnavailableException} lands on it.
 */
class FixAnchorsTest {
    private static final Pattern SEE = Pattern.compile("see\\(\"([a-z0-9-]+)\"\\)|troubleshooting\\.md#([a-z0-9-]+)");

    static Set<String> cited(Path root) throws IOException {
        Set<String> out = new TreeSet<>();
        try (Stream<Path> walk = Files.walk(root)) {
            for (Path p : walk.filter(f -> f.toString().endsWith(".java")
                            && f.toString().contains("/src/main/")
                            && !f.toString().contains("/target/"))
                    .toList()) {
                Matcher m = SEE.matcher(Files.readString(p));
                while (m.find()) out.add(m.group(1) != null ? m.group(1) : m.group(2));
            }
        }
        return out;
    }

    @Test
    void everyCitedTroubleshootingSectionExists() throws IOException {
        Set<String> anchors = Markdown.read(DocLinksTest.ROOT.resolve("docs/troubleshooting.md"))
                .anchors();
        Set<String> cited = cited(DocLinksTest.ROOT);
        assertTrue(cited.size() >= 8, "the backends' fix texts cite the troubleshooting page; found only " + cited);
        List<String> missing = new ArrayList<>();
        for (String a : cited) if (!anchors.contains(a)) missing.add(a);
        assertEquals(
                List.of(),
                missing,
                "fix texts cite sections docs/troubleshooting.md does not have (its anchors: " + anchors + ")");
    }
}
