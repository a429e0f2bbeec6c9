package dev.unicomm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.conformance.KitSuites;
import dev.unicomm.conformance.OnlyWhenNamed;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code unicomm conformance --help} names exactly the suites the default run leaves out (it once named one of two). */
class ConformanceHelpTest {
    @Test
    void theHelpNamesEverySuiteRunOnlyWhenNamed() {
        PrintStream old = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true));
        int code;
        try {
            code = Main.run("conformance", "--help");
        } finally {
            System.setOut(old);
        }
        String help = buf.toString().replaceAll("\\s+", " ");
        assertEquals(0, code, help);
        Matcher m = Pattern.compile("the default run is every suite but ([A-Za-z, and]+?) \\(")
                .matcher(help);
        assertTrue(m.find(), "--help no longer says what the default run leaves out: " + help);
        List<String> named = KitSuites.configured().stream()
                .filter(c -> c.isAnnotationPresent(OnlyWhenNamed.class))
                .map(KitSuites::shortName)
                .sorted()
                .toList();
        assertEquals(
                named,
                List.of(m.group(1).split(",? and |, ")).stream()
                        .map(String::trim)
                        .sorted()
                        .toList(),
                help);
    }
}
