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
     * The job's topology, agreed through {@code store}; a single PE is alone on its host.
     *
     * @throws dev.unicomm.api.CommTimeoutException if a rank never reports (the store names it)
     */
    public static HostTopology agree(Store store, CommConfig config) {
        int n = config.worldSize(), rank = config.rank();
        if (n == 1) return HostTopology.singleHost(0, 1, hostname());
        store.set(PREFIX + rank, identity().getBytes(StandardCharsets.UTF_8));
        if (rank == 0) {
            String[] ids = new String[n];
            for (int r = 0; r < n; r++) ids[r] = new String(store.get(PREFIX + r, config.timeout()), StandardCharsets.UTF_8);
            store.set(MAP, encode(ids).getBytes(StandardCharsets.UTF_8));
        }
        HostTopology hosts = decode(rank, n, new String(store.get(MAP, config.timeout()), StandardCharsets.UTF_8));
        // Every rank holds the map before rank 0 may give up (a backend that cannot span these hosts fails every
        // rank alike, and rank 0's store must not close under a rank still reading it).
        if (!hosts.singleHost()) store.barrier("unicomm/connect/hosts");
        return hosts;
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
        if (parts.length != 2 || hosts.length != n) throw new CommException("rank 0 published a host map for " + hosts.length + " ranks; this job has " + n);
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
