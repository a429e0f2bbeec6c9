package dev.unicomm.api;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class HostTopologyTest {
    /** 2 hosts x 3 ranks, node-major. */
    private static HostTopology nodeMajor(int rank) {
        return new HostTopology(rank, new int[] {0, 0, 0, 1, 1, 1}, List.of("node0", "node1"));
    }

    @Test
    void ranksKnowTheirHostLocalRankAndNeighbours() {
        HostTopology t = nodeMajor(4);
        assertEquals(2, t.hostCount());
        assertEquals(1, t.host());
        assertEquals(1, t.localRank());
        assertEquals(3, t.localSize());
        assertArrayEquals(new int[] {3, 4, 5}, t.ranksOn(1));
        assertEquals("node1", t.hostName(t.host()));
        assertFalse(t.singleHost());
        assertEquals("2 hosts: node0 (ranks 0-2), node1 (ranks 3-5)", t.toString());
    }

    @Test
    void roundRobinLayoutsAreTopologiesToo() {
        HostTopology t = new HostTopology(3, new int[] {0, 1, 0, 1}, List.of("a", "b"));
        assertArrayEquals(new int[] {1, 3}, t.ranksOn(1));
        assertEquals(1, t.localRank());
        assertEquals("2 hosts: a (ranks 0,2), b (ranks 1,3)", t.toString());
    }

    @Test
    void aShrunkCommunicatorKeepsTheHostsOfItsSurvivors() {
        // job ranks 0..5; ranks 3, 4 and 5 died with node1's link: the survivors are all on node0.
        HostTopology survivors = nodeMajor(0).restrict(new int[] {0, 1, 2}, 2);
        assertTrue(survivors.singleHost());
        assertEquals(2, survivors.localRank());
        HostTopology some = nodeMajor(0).restrict(new int[] {1, 4, 5}, 0);
        assertEquals("2 hosts: node0 (ranks 0), node1 (ranks 1-2)", some.toString());
    }

    @Test
    void malformedMapsAreRefusedWithTheReason() {
        assertThrows(IllegalArgumentException.class, () -> new HostTopology(0, new int[] {1, 0}, List.of("a", "b")));
        assertThrows(IllegalArgumentException.class, () -> new HostTopology(0, new int[] {0, 1}, List.of("a")));
        assertThrows(IllegalArgumentException.class, () -> new HostTopology(2, new int[] {0, 0}, List.of("a")));
        assertEquals(
                "host must be in [0, 2), got 2",
                assertThrows(IllegalArgumentException.class, () -> nodeMajor(0).ranksOn(2))
                        .getMessage());
    }
}
