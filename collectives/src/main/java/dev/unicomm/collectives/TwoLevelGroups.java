package dev.unicomm.collectives;

import dev.unicomm.api.HostTopology;

/**
 * The two groups a rank belongs to in a two-level collective of the world: its host's ranks ({@link #node})
 * and the ranks of its local rank on every host ({@link #column}, one per host, in host order). Defined
 * only where every host has the same number of ranks, at least two, and there are several hosts: on one
 * host the flat algorithms move nothing across hosts, and with one rank per host two levels are one.
 */
final class TwoLevelGroups {
    final int me;
    final int[] node;
    final int[] column;
    /**
     * Whether host h holds ranks {@code [h*L, (h+1)*L)}: then a fold over the ranks in order is a fold over
     * the hosts in order, each over its ranks in order, which is what the two-level reductions need.
     */
    final boolean hostMajor;

    private TwoLevelGroups(int me, int[] node, int[] column, boolean hostMajor) {
        this.me = me;
        this.node = node;
        this.column = column;
        this.hostMajor = hostMajor;
    }

    /** Ranks per host. */
    int local() {
        return node.length;
    }

    /** Number of hosts. */
    int hosts() {
        return column.length;
    }

    /** The groups of this rank, or null where the topology does not call for two levels. */
    static TwoLevelGroups of(HostTopology topo) {
        int hosts = topo.hostCount(), local = topo.localSize();
        if (hosts < 2 || local < 2) return null;
        for (int h = 0; h < hosts; h++) if (topo.ranksOn(h).length != local) return null;
        int[] node = topo.ranksOn(topo.host());
        int[] column = new int[hosts];
        for (int h = 0; h < hosts; h++) column[h] = topo.ranksOn(h)[topo.localRank()];
        boolean hostMajor = true;
        for (int r = 0; r < topo.size(); r++) hostMajor &= topo.hostOf(r) == r / local;
        return new TwoLevelGroups(node[topo.localRank()], node, column, hostMajor);
    }

    /** Whether a team with these world ranks (in team order) is the whole world in world order. */
    boolean coversWorld(int[] worldRanks) {
        if (worldRanks.length != node.length * column.length) return false;
        for (int i = 0; i < worldRanks.length; i++) if (worldRanks[i] != i) return false;
        return true;
    }
}
