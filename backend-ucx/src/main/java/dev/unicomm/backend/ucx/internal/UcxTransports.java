package dev.unicomm.backend.ucx.internal;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads the transports and devices out of {@code ucp_context_print_info}'s text. */
final class UcxTransports {
    private UcxTransports() {}

    /** A resource line: {@code #      resource 1  :  md 1  dev 1  flags -- tcp/eth0}. */
    private static final Pattern RESOURCE = Pattern.compile("resource\\s+\\d+\\s*:.*?\\s([A-Za-z0-9_]+)/(\\S+)\\s*$");

    private static final Set<String> NETWORK = Set.of("tcp", "rc_verbs", "rc_mlx5", "ud_verbs", "ud_mlx5", "dc_mlx5");

    /** {@code transport/device} pairs, in UCX's order. */
    static List<String[]> resources(String info) {
        List<String[]> out = new ArrayList<>();
        for (String line : info.split("\n")) {
            Matcher m = RESOURCE.matcher(line.strip());
            if (m.find()) out.add(new String[] {m.group(1), m.group(2)});
        }
        return out;
    }

    /** The transports' names, e.g. {@code "self, tcp, sysv, posix, cma; no cuda"}. */
    static String summary(String info) {
        Set<String> tls = new LinkedHashSet<>();
        for (String[] r : resources(info)) tls.add(r[0]);
        if (tls.isEmpty()) return "none listed";
        boolean gpu = tls.stream().anyMatch(t -> t.startsWith("cuda") || t.startsWith("rocm") || t.equals("gdr_copy"));
        return String.join(", ", tls) + (gpu ? "" : "; no cuda");
    }

    /** Devices of network transports (tcp, verbs), e.g. {@code eth0}, {@code mlx5_0:1}. */
    static List<String> networkDevices(String info) {
        Set<String> devs = new LinkedHashSet<>();
        for (String[] r : resources(info)) if (NETWORK.contains(r[0])) devs.add(r[1]);
        return List.copyOf(devs);
    }
}
