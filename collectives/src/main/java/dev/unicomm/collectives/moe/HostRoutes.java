package dev.unicomm.collectives.moe;

import dev.unicomm.api.HostTopology;

/**
 * Index arithmetic of the two-level MoE (DeepEP internode's split): which rank of a destination host
 * receives a source rank's tokens for that host (its <em>proxy</em>, the rank with the same local rank,
 * modulo the host's size when hosts differ in size), and where on the proxy they land (its
 * <em>slot</em>, one per source rank from another host that it serves). Pure arithmetic on the
 * topology, the same on every rank, so it is tested for hundreds of ranks without starting any.
 */
final class HostRoutes {
    final int ranks, hosts, me, myHost;
    final int[] hostOf; // rank -> host
    final int[] localRank; // rank -> index among its host's ranks
    final int[][] ranksOn; // host -> its ranks, ascending
    final int[] slotSource; // my slots: slot -> the source rank it holds
    final int[] mySlot; // host g -> this rank's slot on its proxy on g (-1 for its own host)
    final int slots; // slots per rank: the most any proxy serves (sizes the symmetric staging area)

    HostRoutes(HostTopology topo) {
        ranks = topo.size();
        hosts = topo.hostCount();
        me = localIndexOfMe(topo);
        hostOf = new int[ranks];
        localRank = new int[ranks];
        ranksOn = new int[hosts][];
        for (int h = 0; h < hosts; h++) {
            ranksOn[h] = topo.ranksOn(h);
            for (int l = 0; l < ranksOn[h].length; l++) {
                hostOf[ranksOn[h][l]] = h;
                localRank[ranksOn[h][l]] = l;
            }
        }
        myHost = hostOf[me];
        mySlot = new int[hosts];
        for (int g = 0; g < hosts; g++) mySlot[g] = g == myHost ? -1 : slot(me, g);
        int most = 0;
        int[] mine = null;
        for (int g = 0; g < hosts; g++) {
            for (int p : ranksOn[g]) {
                int n = 0;
                for (int s = 0; s < ranks; s++) if (hostOf[s] != g && proxy(s, g) == p) n++;
                most = Math.max(most, n);
                if (p == me) {
                    mine = new int[n];
                    n = 0;
                    for (int s = 0; s < ranks; s++) if (hostOf[s] != g && proxy(s, g) == p) mine[n++] = s;
                }
            }
        }
        slotSource = mine;
        slots = most;
    }

    private static int localIndexOfMe(HostTopology topo) {
        int[] on = topo.ranksOn(topo.host());
        return on[topo.localRank()];
    }

    /** The rank of host {@code g} that receives source {@code s}'s tokens for {@code g}. */
    int proxy(int s, int g) {
        int[] on = ranksOn[g];
        return on[localRank[s] % on.length];
    }

    /**
     * Source {@code s}'s slot on its proxy on host {@code g} ({@code g} not s's host): the number of
     * lower sources from other hosts that the same proxy serves. Sources whose local ranks are equal
     * modulo the proxy host's size share a proxy, so the slot is the count of such lower ranks.
     */
    int slot(int s, int g) {
        int p = proxy(s, g), n = 0;
        for (int q = 0; q < s; q++) if (hostOf[q] != g && proxy(q, g) == p) n++;
        return n;
    }

    /** Ranks on the largest host. */
    int largestHost() {
        int most = 0;
        for (int[] on : ranksOn) most = Math.max(most, on.length);
        return most;
    }

    /** Number of ranks on this rank's host. */
    int localSize() {
        return ranksOn[myHost].length;
    }

    /** Whether the two-level algorithm can send fewer bytes across hosts than the flat one: several hosts, one of them with several ranks. */
    boolean worthIt() {
        return hosts > 1 && hosts < ranks;
    }
}
