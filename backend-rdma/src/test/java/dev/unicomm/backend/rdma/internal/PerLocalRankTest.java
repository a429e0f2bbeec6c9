package dev.unicomm.backend.rdma.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PerLocalRankTest {
    @Test
    void oneValueServesEveryLocalRank() {
        assertEquals("rxe0", PerLocalRank.pick("rdma.device", "rxe0", 0));
        assertEquals("rxe0", PerLocalRank.pick("rdma.device", "rxe0", 5));
        assertNull(PerLocalRank.pick("rdma.device", null, 3));
    }

    @Test
    void aListIsIndexedByLocalRankModuloItsLength() {
        String v = "rxe0, rxe0,rxe1,rxe1";
        assertEquals("rxe0", PerLocalRank.pick("rdma.device", v, 0));
        assertEquals("rxe0", PerLocalRank.pick("rdma.device", v, 1));
        assertEquals("rxe1", PerLocalRank.pick("rdma.device", v, 2));
        assertEquals("rxe1", PerLocalRank.pick("rdma.device", v, 3));
        assertEquals("rxe0", PerLocalRank.pick("rdma.device", v, 4));
        assertEquals(3, PerLocalRank.pickInt("rdma.gid_index", "1,3", 1, -1));
        assertEquals(-1, PerLocalRank.pickInt("rdma.gid_index", null, 1, -1));
    }

    @Test
    void badEntriesAreNamed() {
        var empty =
                assertThrows(IllegalArgumentException.class, () -> PerLocalRank.pick("rdma.device", "rxe0,,rxe1", 0));
        assertTrue(empty.getMessage().contains("unicomm.rdma.device has an empty entry"), empty.getMessage());
        var notInt = assertThrows(
                IllegalArgumentException.class, () -> PerLocalRank.pickInt("rdma.gid_index", "1,x", 1, -1));
        assertTrue(notInt.getMessage().startsWith("unicomm.rdma.gid_index must be an integer"), notInt.getMessage());
    }
}
