package dev.unicomm.architecture;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** unicomm-bom must pin every published module of the reactor (and nothing that does not exist). */
class BomCoversModulesTest {
    /** Build-only modules that are not published for users (test-support: harnesses for this project's own tests). */
    private static final Set<String> NOT_PUBLISHED =
            Set.of("architecture-tests", "benchmarks", "test-support", "unicomm-bom");
    /** Parent poms: published (the backends' poms need them) but never a dependency, so not in a BOM. */
    private static final Set<String> PARENTS = Set.of("backend-native-parent");

    @Test
    void bomListsEveryPublishedModule() throws Exception {
        Path root = Path.of("..").toAbsolutePath().normalize();
        Set<String> modules =
                all(Pattern.compile("<module>([^<]+)</module>"), Files.readString(root.resolve("pom.xml")));
        modules.removeAll(NOT_PUBLISHED);
        modules.removeAll(PARENTS);
        String bom = Files.readString(root.resolve("unicomm-bom/pom.xml"));
        String managed = bom.substring(bom.indexOf("<dependencyManagement>"));
        Set<String> inBom = all(Pattern.compile("<artifactId>([^<]+)</artifactId>"), managed);
        assertEquals(modules, inBom, "unicomm-bom/pom.xml must manage exactly the published modules of the root pom");
    }

    private static Set<String> all(Pattern p, String text) {
        Set<String> out = new TreeSet<>();
        Matcher m = p.matcher(text);
        while (m.find()) out.add(m.group(1).trim());
        return out;
    }
}
