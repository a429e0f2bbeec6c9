package dev.unicomm.internal.checked;

import dev.unicomm.api.HostTopology;
import dev.unicomm.api.Team;

/** The node team: one strided split of the world per host, in host order, keeping this rank's own. */
final class NodeTeams {
    private NodeTeams() {}

    /** Collective over {@code world}; every rank makes the same splits in the same order. */
    static Team split(Team world, HostTopology hosts) {
        Team mine = null;
        for (int h = 0; h < hosts.hostCount(); h++) {
            int[] ranks = hosts.ranksOn(h);
            int stride = ranks.length > 1 ? ranks[1] - ranks[0] : 1;
            for (int i = 1; i < ranks.length; i++)
                if (ranks[i] - ranks[i - 1] != stride)
                    throw new IllegalStateException(
                            "nodeTeam() needs each host's ranks evenly spaced (teams are strided), but host "
                                    + hosts.hostName(h) + " has ranks " + java.util.Arrays.toString(ranks)
                                    + "; launch the ranks node-major");
        }
        for (int h = 0; h < hosts.hostCount(); h++) {
            int[] ranks = hosts.ranksOn(h);
            Team t = world.split(ranks[0], ranks.length > 1 ? ranks[1] - ranks[0] : 1, ranks.length);
            if (h == hosts.host()) mine = t;
            else t.close();
        }
        return mine;
    }
}
