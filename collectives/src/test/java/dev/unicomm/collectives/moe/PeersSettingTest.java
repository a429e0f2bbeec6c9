package dev.unicomm.collectives.moe;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.ResourceLock;

/** {@code unicomm.moe.direct}: true or false, anything else named in the error. */
@ResourceLock("system-properties")
class PeersSettingTest {
    @AfterEach void clear() { System.clearProperty("unicomm.moe.direct"); }

    @Test void readsTrueAndFalseAndRejectsTheRest() {
        System.setProperty("unicomm.moe.direct", " FALSE ");
        assertFalse(Peers.directAllowed());
        System.setProperty("unicomm.moe.direct", "true");
        assertTrue(Peers.directAllowed());
        System.setProperty("unicomm.moe.direct", "yes");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, Peers::directAllowed);
        assertTrue(e.getMessage().contains("'yes'"), e.getMessage());
    }
}
