package dev.unicomm.backend.ascend.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class AscendSettingsTest {
    private static AscendSettings of(Map<String, String> m) {
        return AscendSettings.from(m::get);
    }

    @Test
    void defaultsFollowAscendShmemTlsOnAndTheCannLibraryNames() {
        AscendSettings s = of(Map.of());
        assertTrue(s.tls(), "Ascend SHMEM enables TLS on its config store by default; so do we");
        assertNull(s.tlsInfo());
        assertEquals("libascendcl.so", s.aclLibrary());
        assertEquals("libshmem.so", s.shmemLibrary());
        assertEquals(-1, s.device());
        assertFalse(s.hostHeap());
        assertEquals(4L << 20, s.stagingBytes());
    }

    @Test
    void tlsCanBeSwitchedOff() {
        assertFalse(of(Map.of(AscendSettings.TLS, "false")).tls());
        assertFalse(of(Map.of(AscendSettings.TLS, "off")).tls());
        var e = assertThrows(IllegalArgumentException.class, () -> of(Map.of(AscendSettings.TLS, "maybe")));
        assertTrue(e.getMessage().contains("true or false"), e.getMessage());
    }

    @Test
    void tlsInfoIsAssembledFromItsFields() {
        AscendSettings s = of(Map.of(
                "unicomm.ascend.tls.ca.path",
                "/etc/ssl/certs/",
                "unicomm.ascend.tls.cert",
                "/etc/ssl/certs/server.crt",
                "unicomm.ascend.tls.ca.files",
                "ca1.pem,ca2.pem"));
        assertEquals(
                "tlsCaPath: /etc/ssl/certs/; tlsCert: /etc/ssl/certs/server.crt; tlsCaFile: ca1.pem,ca2.pem",
                s.tlsInfo());
    }

    @Test
    void tlsFieldsThatWouldBreakTheTlsInfoSyntaxAreRejected() {
        var e = assertThrows(IllegalArgumentException.class, () -> of(Map.of("unicomm.ascend.tls.cert", "/a;b.crt")));
        assertTrue(e.getMessage().contains("';'"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> of(Map.of("unicomm.ascend.tls.key", "c:/key.pem")));
        assertThrows(IllegalArgumentException.class, () -> of(Map.of("unicomm.ascend.tls.cert", "a.crt,b.crt")));
    }

    @Test
    void rawTlsInfoAndFieldsAreExclusive() {
        var e = assertThrows(
                IllegalArgumentException.class,
                () -> of(Map.of(AscendSettings.TLS_INFO, "tlsCert: /x.crt", "unicomm.ascend.tls.cert", "/y.crt")));
        assertTrue(e.getMessage().contains("one or the other"), e.getMessage());
        assertEquals(
                "tlsCert: /x.crt",
                of(Map.of(AscendSettings.TLS_INFO, "tlsCert: /x.crt")).tlsInfo());
    }

    @Test
    void tlsMaterialWithTlsOffIsAContradiction() {
        var e = assertThrows(
                IllegalArgumentException.class,
                () -> of(Map.of(AscendSettings.TLS, "false", "unicomm.ascend.tls.cert", "/y.crt")));
        assertTrue(e.getMessage().contains("unicomm.ascend.tls=false"), e.getMessage());
    }

    @Test
    void badValuesSayWhatIsAllowed() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> of(Map.of(AscendSettings.HEAP_SIDE, "gpu")))
                .getMessage()
                .contains("'device' or 'host'"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> of(Map.of(AscendSettings.STAGING_SIZE, "1000")))
                .getMessage()
                .contains("multiple of 4096"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> of(Map.of(AscendSettings.DEVICE, "-3")))
                .getMessage()
                .contains(">= 0"));
        assertEquals(128L << 10, of(Map.of(AscendSettings.STAGING_SIZE, "128K")).stagingBytes());
        assertTrue(of(Map.of(AscendSettings.HEAP_SIDE, "HOST")).hostHeap());
    }
}
