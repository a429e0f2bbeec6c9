package dev.unicomm.backend.shm;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.CommException;
import org.junit.jupiter.api.Test;

class HostIdentityTest {
    @Test
    void peOnAnotherHostIsNamed() {
        String here = HostIdentity.current();
        assertDoesNotThrow(() -> HostIdentity.requireOneHost(new String[] {here, here, here}));
        var e = assertThrows(
                CommException.class, () -> HostIdentity.requireOneHost(new String[] {here, here, "node7/abc"}));
        assertTrue(
                e.getMessage().contains("rank 2 on node7/abc") && e.getMessage().contains("rank 0 runs on " + here),
                e.getMessage());
    }

    /** Issue 46: the same hostname (and boot) with another /dev/shm is named as such, not as a missing heap file. */
    @Test
    void aPeWithTheSameNameButAnotherShmFolderIsToldSo(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp) {
        java.nio.file.Path shm = java.nio.file.Path.of("/dev/shm");
        String mine = HostIdentity.current(shm);
        assertDoesNotThrow(() -> HostIdentity.requireSameShm(mine, HostIdentity.current(shm), 1));
        String other = HostIdentity.current() + " shm-device 999999";
        var e = assertThrows(CommException.class, () -> HostIdentity.requireSameShm(other, mine, 3));
        assertTrue(
                e.getMessage().contains("the same host but another shared-memory folder")
                        && e.getMessage().contains("rank 3 on " + mine),
                e.getMessage());
        var far = assertThrows(CommException.class, () -> HostIdentity.requireSameShm("node9/x shm-device 1", mine, 2));
        assertTrue(far.getMessage().contains("(another host)"), far.getMessage());
    }
}
