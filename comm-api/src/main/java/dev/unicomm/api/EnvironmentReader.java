package dev.unicomm.api;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/** Turns environment variables and system properties into a {@link CommConfig}. */
final class EnvironmentReader {
    private EnvironmentReader() {}

    /** Launcher conventions, in priority order: rank, size, local rank variables. */
    private static final String[][] CONVENTIONS = {
            {"UNICOMM_RANK", "UNICOMM_WORLD_SIZE", "UNICOMM_LOCAL_RANK"},
            {"RANK", "WORLD_SIZE", "LOCAL_RANK"},
            {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
            {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID"},
    };

    static CommConfig read(Map<String, String> env, Properties props) {
        Map<String, String> settings = new HashMap<>();
        // UNICOMM_FOO_BAR -> unicomm.foo.bar ; properties override the environment.
        env.forEach((k, v) -> {
            if (k.startsWith("UNICOMM_")) settings.put("unicomm." + k.substring(8).toLowerCase().replace('_', '.'), v);
        });
        for (String name : props.stringPropertyNames()) {
            if (name.startsWith("unicomm.")) settings.put(name, props.getProperty(name));
        }
        int rank = 0, size = 1, localRank = -1;
        for (String[] c : CONVENTIONS) {
            String r = c[0].equals("UNICOMM_RANK") ? settings.get("unicomm.rank") : env.get(c[0]);
            String s = c[0].equals("UNICOMM_RANK") ? settings.get("unicomm.world.size") : env.get(c[1]);
            if (r != null && s != null) {
                rank = parseInt(c[0], r);
                size = parseInt(c[1], s);
                String l = c[0].equals("UNICOMM_RANK") ? settings.get("unicomm.local.rank") : env.get(c[2]);
                localRank = l == null ? -1 : parseInt(c[2], l);
                break;
            }
        }
        if (localRank < 0) localRank = rank;
        String host = null;
        int port = 0;
        String store = settings.get("unicomm.store");
        if (store != null) {
            int colon = store.lastIndexOf(':');
            if (colon <= 0) throw new IllegalArgumentException("UNICOMM_STORE must be host:port, got '" + store + "'");
            host = store.substring(0, colon);
            port = parseInt("UNICOMM_STORE port", store.substring(colon + 1));
        } else if (env.get("MASTER_ADDR") != null && env.get("MASTER_PORT") != null) {
            host = env.get("MASTER_ADDR");
            port = parseInt("MASTER_PORT", env.get("MASTER_PORT"));
        }
        String token = settings.get("unicomm.token");
        if (host == null && size > 1) {
            // mpirun and srun say where rank 0 runs; nobody needs to set MASTER_ADDR by hand there.
            var derived = LauncherStore.derive(env, env.get("MASTER_PORT"));
            if (derived.isPresent()) {
                var d = derived.get();
                if (d.host() == null)
                    throw new IllegalArgumentException("rank " + rank + " of " + size + " was started by " + d.source()
                            + ", which does not say where rank 0 runs here: set " + d.missing());
                host = env.getOrDefault("MASTER_ADDR", d.host());
                port = d.port();
                if (token == null) token = d.token();
            }
        }
        String backend = settings.get("unicomm.backend");
        if (backend != null && backend.isBlank()) backend = null;
        Duration timeout = settings.containsKey("unicomm.timeout")
                ? parseDuration(settings.get("unicomm.timeout")) : CommConfig.DEFAULT_TIMEOUT;
        long heap = settings.containsKey("unicomm.heap.size")
                ? ByteSize.parse("UNICOMM_HEAP_SIZE (unicomm.heap.size)", settings.get("unicomm.heap.size")) : CommConfig.DEFAULT_HEAP_SIZE;
        boolean tls = Boolean.parseBoolean(settings.getOrDefault("unicomm.tls", "false"));
        return new CommConfig(backend, rank, size, localRank, host, port, token, tls, timeout, heap, settings);
    }

    private static int parseInt(String what, String v) {
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " must be an integer, got '" + v + "'");
        }
    }

    /** Accepts {@code 30s}, {@code 500ms}, {@code 2m} or plain seconds. */
    static Duration parseDuration(String v) {
        String s = v.trim().toLowerCase();
        try {
            if (s.endsWith("ms")) return Duration.ofMillis(Long.parseLong(s.substring(0, s.length() - 2)));
            if (s.endsWith("s")) return Duration.ofSeconds(Long.parseLong(s.substring(0, s.length() - 1)));
            if (s.endsWith("m")) return Duration.ofMinutes(Long.parseLong(s.substring(0, s.length() - 1)));
            return Duration.ofSeconds(Long.parseLong(s));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("UNICOMM_TIMEOUT must look like 30s, 500ms, 2m or 30, got '" + v + "'");
        }
    }
}
