package dev.unicomm.collectives.moe;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.unicomm.api.HostTopology;
import dev.unicomm.api.MoeConfig;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The two-level MoE's index arithmetic up to 256 ranks without starting any: every (source, other host)
 * pair has exactly one proxy on that host and one slot there, no two sources share a proxy's slot, and
 * the slots per rank (which size the staging area) are what the topology needs, nothing more.
 */
class HostRoutesTest {
    @ParameterizedTest(name = "{0} ranks on {1} hosts, node-major={2}")
    @CsvSource({"4,2,true", "5,2,true", "256,32,true", "256,2,false", "256,256,true", "255,16,false", "64,8,false"})
    void everySourceHasOneSlotOnOneProxyPerOtherHost(int ranks, int hosts, boolean nodeMajor) {
        int[] hostOf = new int[ranks];
        for (int r = 0; r < ranks; r++) hostOf[r] = nodeMajor ? (int) ((long) r * hosts / ranks) : r % hosts;
        List<String> names = IntStream.range(0, hosts).mapToObj(h -> "h" + h).toList();
        HostRoutes[] at = new HostRoutes[ranks];
        for (int r = 0; r < ranks; r++) at[r] = new HostRoutes(new HostTopology(r, hostOf, names));
        int most = 0;
        for (int p = 0; p < ranks; p++) {
            HostRoutes pr = at[p];
            assertEquals(at[0].slots, pr.slots, "every rank sizes the same staging area");
            boolean[] used = new boolean[pr.slots];
            for (int sl = 0; sl < pr.slotSource.length; sl++) {
                int s = pr.slotSource[sl];
                assertTrue(hostOf[s] != hostOf[p], "a proxy serves only other hosts' ranks");
                assertEquals(p, at[s].proxy(s, hostOf[p]), "the source agrees on its proxy");
                assertEquals(sl, at[s].mySlot[hostOf[p]], "the source agrees on its slot");
                assertTrue(!used[sl], "one source per slot");
                used[sl] = true;
            }
            most = Math.max(most, pr.slotSource.length);
        }
        assertEquals(most, at[0].slots, "staging slots: the most any proxy serves");
        int smallest = IntStream.range(0, hosts)
                .map(h -> at[0].ranksOn[h].length)
                .min()
                .orElseThrow();
        int largest = IntStream.range(0, hosts)
                .map(h -> at[0].ranksOn[h].length)
                .max()
                .orElseThrow();
        // Equal hosts: one slot per other host; a proxy on a small host serves several ranks of a big one.
        assertTrue(most <= (hosts - 1) * ((largest + smallest - 1) / smallest), "slots " + most);
        for (int s = 0; s < ranks; s++) {
            int served = 0;
            for (int g = 0; g < hosts; g++) if (g != hostOf[s]) served += at[s].mySlot[g] >= 0 ? 1 : 0;
            assertEquals(hosts - 1, served, "rank " + s + " reaches every other host");
        }
        // Buffer sizing for DeepSeek-V3's normal shape at this scale: the staging area is below the flat receive
        // area of R*T rows it sits beside (both in range of a long).
        MoeConfig v3 = MoeConfig.normal(ranks, 7168, 4096);
        long staging = HierarchicalMoe.stagingBytes(at[0], v3), receive = v3.sizeHint(ranks);
        assertTrue(staging > 0 && staging < receive, "staging " + staging + " receive " + receive);
    }
}
