package dev.unicomm.api;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Which ranks of a communicator share a host, agreed by every rank through the job's rendezvous store at
 * connect (each rank reports what identifies its machine: boot id, network namespace, hostname), not
 * guessed from launcher variables. Hosts are numbered in the order of their lowest rank, so host 0 holds
 * rank 0. Hierarchical algorithms use it: inside a host through direct access, across hosts once per host.
 */
public final class HostTopology {
    private final int rank;
    private final int[] hostOfRank;
    private final List<String> hostNames;

    /**
     * @param rank       this rank
     * @param hostOfRank every rank's host index, hosts numbered by first appearance (0, then the next new one, …)
     * @param hostNames  one display name per host (its hostname)
     */
    public HostTopology(int rank, int[] hostOfRank, List<String> hostNames) {
        if (hostOfRank.length == 0) throw new IllegalArgumentException("a topology needs at least one rank");
        if (rank < 0 || rank >= hostOfRank.length)
            throw new IllegalArgumentException("rank must be in [0, " + hostOfRank.length + "), got " + rank);
        int next = 0;
        for (int r = 0; r < hostOfRank.length; r++) {
            int h = hostOfRank[r];
            if (h < 0 || h > next)
                throw new IllegalArgumentException(
                        "hosts must be numbered by their first rank: rank " + r + " has host " + h);
            if (h == next) next++;
        }
        if (hostNames.size() != next)
            throw new IllegalArgumentException(next + " hosts need " + next + " names, got " + hostNames.size());
        this.rank = rank;
        this.hostOfRank = hostOfRank.clone();
        this.hostNames = List.copyOf(hostNames);
    }

    /** Every one of {@code size} ranks on one host named {@code name}. */
    public static HostTopology singleHost(int rank, int size, String name) {
        return new HostTopology(rank, new int[size], List.of(name));
    }

    /** Number of ranks. */
    public int size() {
        return hostOfRank.length;
    }

    /** Number of hosts. */
    public int hostCount() {
        return hostNames.size();
    }

    /** This rank's host. */
    public int host() {
        return hostOfRank[rank];
    }

    /** The host of {@code rank}. */
    public int hostOf(int rank) {
        if (rank < 0 || rank >= hostOfRank.length)
            throw new IllegalArgumentException("rank must be in [0, " + hostOfRank.length + "), got " + rank);
        return hostOfRank[rank];
    }

    /** The ranks on {@code host}, ascending. */
    public int[] ranksOn(int host) {
        if (host < 0 || host >= hostCount())
            throw new IllegalArgumentException("host must be in [0, " + hostCount() + "), got " + host);
        return java.util.stream.IntStream.range(0, hostOfRank.length)
                .filter(r -> hostOfRank[r] == host)
                .toArray();
    }

    /** This rank's index among the ranks of its host. */
    public int localRank() {
        int l = 0;
        for (int r = 0; r < rank; r++) if (hostOfRank[r] == hostOfRank[rank]) l++;
        return l;
    }

    /** Number of ranks on this rank's host. */
    public int localSize() {
        return ranksOn(host()).length;
    }

    /** The display name (hostname) of {@code host}. */
    public String hostName(int host) {
        if (host < 0 || host >= hostCount())
            throw new IllegalArgumentException("host must be in [0, " + hostCount() + "), got " + host);
        return hostNames.get(host);
    }

    /** Whether every rank runs on one host. */
    public boolean singleHost() {
        return hostCount() == 1;
    }

    /**
     * The topology of a communicator made of {@code members} of this one (ranks of this one, in the new
     * communicator's order), seen from its rank {@code newRank}: for {@link Communicator#shrink()}.
     */
    public HostTopology restrict(int[] members, int newRank) {
        int[] map = new int[hostCount()];
        Arrays.fill(map, -1);
        int[] hosts = new int[members.length];
        List<String> names = new ArrayList<>();
        for (int i = 0; i < members.length; i++) {
            int old = hostOf(members[i]);
            if (map[old] < 0) {
                map[old] = names.size();
                names.add(hostNames.get(old));
            }
            hosts[i] = map[old];
        }
        return new HostTopology(newRank, hosts, names);
    }

    /** {@code "2 hosts: node0 (ranks 0-1), node1 (ranks 2-3)"}. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(hostCount() + (hostCount() == 1 ? " host: " : " hosts: "));
        for (int h = 0; h < hostCount(); h++) {
            if (h > 0) b.append(", ");
            b.append(hostNames.get(h))
                    .append(" (ranks ")
                    .append(ranges(ranksOn(h)))
                    .append(')');
        }
        return b.toString();
    }

    private static String ranges(int[] ranks) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < ranks.length; ) {
            int j = i;
            while (j + 1 < ranks.length && ranks[j + 1] == ranks[j] + 1) j++;
            if (b.length() > 0) b.append(',');
            b.append(ranks[i]);
            if (j > i) b.append('-').append(ranks[j]);
            i = j + 1;
        }
        return b.toString();
    }
}
