package dev.unicomm.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.conformance.KitSuites;
import dev.unicomm.testsupport.ConsoleCapture;
import dev.unicomm.testsupport.ProseList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code unicomm conformance --help} names exactly the suites the default run leaves out (it once named one of two). */
class ConformanceHelpTest {
    @Test
    void theHelpNamesEverySuiteRunOnlyWhenNamed() {
        var run = ConsoleCapture.run(() -> Main.run("conformance", "--help"));
        String help = run.out().replaceAll("\\s+", " ");
        assertEquals(0, run.code(), run.log());
        Matcher m = Pattern.compile("the default run is every suite but ([A-Za-z, and]+?) \\(")
                .matcher(help);
        assertTrue(m.find(), "--help no longer says what the default run leaves out: " + help);
        assertEquals(KitSuites.onlyWhenNamed(), ProseList.sortedItems(m.group(1)), help);
    }
}
