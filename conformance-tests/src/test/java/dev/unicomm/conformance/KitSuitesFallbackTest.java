package dev.unicomm.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Modifier;
import java.util.Comparator;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * The kit finds its suites even where JUnit's class-path scanner cannot open jars (a jlinked runtime
 * without jdk.zipfs, as staged for the GPU machine): reading its own code source gives the same suites.
 */
class KitSuitesFallbackTest {

    @Test
    void ownCodeSourceFindsTheSameConfiguredSuitesAsTheScanner() {
        Predicate<Class<?>> suite = c -> KitSuite.class.isAssignableFrom(c) && !Modifier.isAbstract(c.getModifiers());
        List<String> fallback = KitSuites.fromOwnCodeSource(KitSuites.CONFIGURED_PACKAGE, suite).stream()
                .map(Class::getName)
                .sorted(Comparator.naturalOrder())
                .toList();
        List<String> scanned = KitSuites.configured().stream()
                .map(Class::getName)
                .sorted(Comparator.naturalOrder())
                .toList();
        assertEquals(scanned, fallback);
        assertEquals(true, scanned.size() >= 11, "too few suites: " + scanned);
    }
}
