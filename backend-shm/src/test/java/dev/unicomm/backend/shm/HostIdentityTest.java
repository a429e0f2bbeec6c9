package dev.unicomm.backend.shm;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommException;
import org.junit.jupiter.api.Test;

class HostIdentityTest {
    @Test void peOnAnotherHostIsNamed() {
        String here = HostIdentity.current();
        assertDoesNotThrow(() -> HostIdentity.requireOneHost(new String[] {here, here, here}));
        var e = assertThrows(CommException.class, () -> HostIdentity.requireOneHost(new String[] {here, here, "node7/abc"}));
        assertTrue(e.getMessage().contains("rank 2 on node7/abc") && e.getMessage().contains("rank 0 runs on " + here), e.getMessage());
    }
}
