package dev.unicomm.benchmarks.bench;

import dev.unicomm.api.HostTopology;
import java.util.List;
import java.util.Locale;

/**
 * Bytes one rank's normal-mode dispatch sends and its combine fetches across hosts under each algorithm,
 * counted by the benchmark from the routing (not taken from the implementation): flat moves a row ({@code
 * 2H}, its K ids {@code 8K} and weights {@code 4K} beside it) per (token, rank of another host that gets
 * it); two levels per (token, other host), plus one 8-byte row count per other host; combine fetches
 * {@code 2H} per (token, other-host rank) flat, and per (token, other host) {@code 2H} where one rank of
 * that host got it, else the {@code 4H} fp32 partial sum. The portable MoE's own counters match these
 * figures byte for byte in its tests ({@code TwoLevelMoeOnThreadsTest}).
 *
 * @param flatDispatch   flat dispatch bytes
 * @param twoDispatch    two-level dispatch bytes
 * @param flatCombine    flat combine bytes
 * @param twoCombine     two-level combine bytes
 * @param rankPairs      (token, other-host rank that gets it) pairs
 * @param hostPairs      (token, other host that gets it) pairs
 * @param remoteTopk     top-k entries naming an expert on another host
 */
record InterHostTraffic(
        long flatDispatch,
        long twoDispatch,
        long flatCombine,
        long twoCombine,
        long rankPairs,
        long hostPairs,
        long remoteTopk) {

    /** Rank {@code me}'s traffic for its ids {@code [tokens, k]} (-1 = unused) with {@code perRank} experts per rank. */
    static InterHostTraffic of(
            HostTopology topo, long[] ids, int tokens, int k, int perRank, int hidden, boolean weights) {
        int ranks = topo.size(), hosts = topo.hostCount();
        long row = 2L * hidden + 8L * k + (weights ? 4L * k : 0), back = weights ? 4L * k : 0;
        long fd = 0, hd = 8L * (hosts - 1), fc = 0, hc = 0, pairsRanks = 0, pairsHosts = 0, remote = 0;
        boolean[] at = new boolean[ranks];
        int[] perHost = new int[hosts];
        for (int t = 0; t < tokens; t++) {
            java.util.Arrays.fill(at, false);
            java.util.Arrays.fill(perHost, 0);
            for (int j = 0; j < k; j++) {
                long e = ids[t * k + j];
                if (e < 0) continue;
                int r = (int) (e / perRank);
                at[r] = true;
                if (topo.hostOf(r) != topo.host()) remote++;
            }
            for (int r = 0; r < ranks; r++) if (at[r] && topo.hostOf(r) != topo.host()) perHost[topo.hostOf(r)]++;
            for (int g = 0; g < hosts; g++) {
                if (perHost[g] == 0) continue;
                fd += perHost[g] * row;
                fc += perHost[g] * (2L * hidden + back);
                hd += row;
                hc += (perHost[g] == 1 ? 2L * hidden : 4L * hidden) + back;
                pairsRanks += perHost[g];
                pairsHosts++;
            }
        }
        if (hosts == 1) hd = 0;
        return new InterHostTraffic(fd, hd, fc, hc, pairsRanks, pairsHosts, remote);
    }

    /** The worker's line: {@code MOEHOSTS,rank,algorithm,the seven figures,topology} (commas in the topology as ';'). */
    String line(int rank, String algorithm, String topology) {
        return String.format(
                Locale.ROOT,
                "MOEHOSTS,%d,%s,%d,%d,%d,%d,%d,%d,%d,%s",
                rank,
                algorithm,
                flatDispatch,
                twoDispatch,
                flatCombine,
                twoCombine,
                rankPairs,
                hostPairs,
                remoteTopk,
                topology.replace(',', ';'));
    }

    /** What the command prints from every rank's line (means over ranks). */
    static String report(List<String[]> lines) {
        String topology =
                lines.getFirst().length > 10 ? lines.getFirst()[10].replace(';', ',') : "topology not reported";
        double[] m = new double[7];
        for (String[] f : lines) for (int i = 0; i < 7; i++) m[i] += Long.parseLong(f[3 + i]) / (double) lines.size();
        String alg = lines.getFirst()[2];
        if (m[0] == 0 && m[1] == 0)
            return "normal mode: algorithm " + alg + " (" + topology + "); no byte crosses a host";
        return String.format(
                Locale.ROOT,
                "normal mode: algorithm %s (%s)%n"
                        + "bytes across hosts per rank (counted by the bench from the routing, mean over ranks): dispatch flat %s, two-level %s, ratio %.3f;"
                        + " combine flat %s, two-level %s, ratio %.3f%n"
                        + "rows across hosts: (token, rank) pairs %.1f, (token, host) pairs %.1f = %.3f of flat; top-k entries on other hosts %.1f:"
                        + " (token, host) pairs / top-k entries = %.3f (the bound, against one row per expert)",
                alg,
                topology,
                BenchReport.size((long) m[0]),
                BenchReport.size((long) m[1]),
                m[1] / m[0],
                BenchReport.size((long) m[2]),
                BenchReport.size((long) m[3]),
                m[2] == 0 ? 0 : m[3] / m[2],
                m[4],
                m[5],
                m[5] / m[4],
                m[6],
                m[6] == 0 ? 0 : m[5] / m[6]);
    }
}
