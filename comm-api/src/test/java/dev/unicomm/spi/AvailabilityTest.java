package dev.unicomm.spi;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.BackendUnavailableException;
import org.junit.jupiter.api.Test;

class AvailabilityTest {
    @Test
    void anAvailableBackendPassesTheEnsure() {
        assertDoesNotThrow(() -> Availability.yes().ensureAvailable("x"));
    }

    @Test
    void theEnsureNamesBackendCauseAndFixAndChainsTheError() {
        var loadError = new UnsatisfiedLinkError("libfoo.so: cannot open shared object file");
        var a = Availability.no(loadError, "install foo");
        assertEquals("libfoo.so: cannot open shared object file", a.cause());
        var e = assertThrows(BackendUnavailableException.class, () -> a.ensureAvailable("foo"));
        assertTrue(e.getMessage().contains("backend 'foo'"), e.getMessage());
        assertTrue(e.getMessage().contains("libfoo.so: cannot open shared object file"), e.getMessage());
        assertTrue(e.getMessage().contains("install foo"), e.getMessage());
        assertSame(loadError, e.getCause());
        assertEquals("foo", e.reports().getFirst().name());
    }

    @Test
    void aStringCauseKeepsWorkingWithoutAnError() {
        var a = Availability.no("no device", null);
        assertNull(a.error());
        assertEquals("", a.fix());
        var e = assertThrows(BackendUnavailableException.class, () -> a.ensureAvailable("bar"));
        assertNull(e.getCause());
        assertTrue(e.getMessage().contains("no device"), e.getMessage());
    }

    @Test
    void anErrorWithoutMessageStillSaysWhy() {
        assertEquals(
                "java.lang.IllegalStateException",
                Availability.no(new IllegalStateException(), "fix").cause());
        assertThrows(IllegalArgumentException.class, () -> Availability.no((Throwable) null, "fix"));
    }
}
