package dev.unicomm.backend.rdma.internal;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A RoCE connection between GIDs of two address families is refused in Java, naming both (no native call). */
class GidFamilyCheckTest {
    private static final Gid V4 = new Gid(0, 0x0000ffff_0a4d0001L);
    private static final Gid LINK_LOCAL = new Gid(0xfe80_0000_0000_0000L, 0x0000_0aff_fe4d_0002L);

    private static LocalAddress local(Gid g, boolean ethernet) {
        return new LocalAddress("rxe0", 1, 0, g, 0, 3, ethernet);
    }

    private static ConnectionInfo peer(Gid g) {
        return new ConnectionInfo("rxe1", true, 0, g, 3, List.of(), Map.of());
    }

    @Test
    void sameFamilyPasses() {
        assertDoesNotThrow(() -> QueuePair.checkSameFamily(local(V4, true), peer(V4)));
        assertDoesNotThrow(() -> QueuePair.checkSameFamily(local(LINK_LOCAL, true), peer(LINK_LOCAL)));
        assertDoesNotThrow(
                () -> QueuePair.checkSameFamily(local(new Gid(0, 0), false), peer(V4)), "InfiniBand routes by LID");
    }

    @Test
    void twoFamiliesAreNamed() {
        var e = assertThrows(
                IllegalArgumentException.class, () -> QueuePair.checkSameFamily(local(LINK_LOCAL, true), peer(V4)));
        assertTrue(
                e.getMessage()
                        .startsWith(
                                "GID families differ: rxe0 uses GID index 0 fe80:0000:0000:0000:0000:0aff:fe4d:0002 (IPv6),"
                                        + " the peer's rxe1 uses ::ffff:10.77.0.1 (IPv4)"),
                e.getMessage());
    }
}
