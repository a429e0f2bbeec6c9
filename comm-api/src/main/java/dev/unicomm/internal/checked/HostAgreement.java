package dev.unicomm.internal.checked;

import dev.unicomm.api.CommConfig;
import dev.unicomm.api.CommException;
import dev.unicomm.api.HostTopology;
import dev.unicomm.spi.Store;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Agrees at connect on which ranks share a host: every rank publishes what identifies its machine, rank 0
 * numbers the hosts and publishes the map, every rank reads it (one round trip per rank after rank 0's
 * gather). A machine is its boot (the kernel's boot id), its network namespace and its hostname: two
 * machines never share a boot id, and two network namespaces of one kernel (containers, the test bed's
 * hosts) reach each other only over a network, as hosts do.
 */
public final class HostAgreement {
    private HostAgreement() {}

    private static final String PREFIX = "unicomm/connect/host/";
    private static final String MAP = "unicomm/connect/hosts";

    /** This process's machine identity: {@code hostname|boot id|network namespace}. */
    public static String identity() {
        return hostname() + "|" + read("/proc/sys/kernel/random/boot_id", "no-boot-id") + "|" + netNamespace();
    }

    /** The hostname, read from the kernel (no DNS lookup, which a test host or a container may not answer). */
    public static String hostname() {
        return read("/proc/sys/kernel/hostname", System.getenv().getOrDefault("HOSTNAME", "unknown-host"));
    }

    /**
     * The job's hosts as every rank sees them, and rank 0's verdict on them: why this job cannot run on
     * these hosts (the backend named cannot span them…), or {@code null}. Every rank gets the same verdict,
     * so a job that cannot span its hosts fails on every rank alike, with no rank blamed for it.
     */
    public record Agreed(HostTopology hosts, String refusal) {}

    /**
     * Agrees through {@code store}; a single PE is alone on its host. {@code verdict} runs on rank 0 only.
     *
     * @throws dev.unicomm.api.CommTimeoutException if a rank never reports (the store names it)
     */
    public static Agreed agree(Store store, CommConfig config, Function<HostTopology, String> verdict) {
        int n = config.worldSize(), rank = config.rank();
        if (n == 1) return new Agreed(HostTopology.singleHost(0, 1, hostname()), null);
        store.set(PREFIX + rank, identity().getBytes(StandardCharsets.UTF_8));
        if (rank == 0) {
            String[] ids = new String[n];
            for (int r = 0; r < n; r++)
                ids[r] = new String(store.get(PREFIX + r, config.timeout()), StandardCharsets.UTF_8);
            String map = encode(ids);
            String refusal = verdict.apply(decode(0, n, map));
            store.set(MAP, (map + (refusal == null ? "" : "\n" + refusal)).getBytes(StandardCharsets.UTF_8));
        }
        String[] published = new String(store.get(MAP, config.timeout()), StandardCharsets.UTF_8).split("\n", 2);
        HostTopology hosts = decode(rank, n, published[0]);
        // Every rank holds the map before rank 0 may give up and close its store under them.
        if (!hosts.singleHost()) store.barrier("unicomm/connect/hosts");
        return new Agreed(hosts, published.length > 1 ? published[1] : null);
    }

    /** {@code host,host,…;name,name,…}: every rank's host index, then each host's name. */
    static String encode(String[] identities) {
        Map<String, Integer> index = new HashMap<>();
        List<String> names = new ArrayList<>();
        StringBuilder hosts = new StringBuilder();
        for (String id : identities) {
            Integer h = index.get(id);
            if (h == null) {
                h = names.size();
                index.put(id, h);
                names.add(displayName(id, names));
            }
            if (hosts.length() > 0) hosts.append(',');
            hosts.append(h);
        }
        return hosts + ";" + String.join(",", names);
    }

    static HostTopology decode(int rank, int n, String map) {
        String[] parts = map.split(";", 2);
        String[] hosts = parts[0].split(",");
        if (parts.length != 2 || hosts.length != n)
            throw new CommException("rank 0 published a host map for " + hosts.length + " ranks; this job has " + n);
        int[] hostOfRank = new int[n];
        for (int r = 0; r < n; r++) hostOfRank[r] = Integer.parseInt(hosts[r]);
        return new HostTopology(rank, hostOfRank, List.of(parts[1].split(",")));
    }

    /** The hostname, with {@code #k} when an earlier host has the same name (containers that share a name). */
    private static String displayName(String id, List<String> earlier) {
        String name = id.substring(0, id.indexOf('|')).replace(',', '_').replace(';', '_');
        String candidate = name;
        for (int k = 2; earlier.contains(candidate); k++) candidate = name + "#" + k;
        return candidate;
    }

    private static String netNamespace() {
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/ns/net")).toString();
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return "net:unknown";
        }
    }

    private static String read(String file, String fallback) {
        try {
            return Files.readString(Path.of(file)).strip();
        } catch (IOException | SecurityException e) {
            return fallback;
        }
    }
}
