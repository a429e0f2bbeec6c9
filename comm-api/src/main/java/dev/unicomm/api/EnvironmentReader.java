package dev.unicomm.api;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/** Turns environment variables and system properties into a {@link CommConfig}. */
final class EnvironmentReader {
    private EnvironmentReader() {}

    /** Launcher conventions, in priority order: rank, size, local rank variables (Slurm's older size name last). */
    private static final String[][] CONVENTIONS = {
        {"UNICOMM_RANK", "UNICOMM_WORLD_SIZE", "UNICOMM_LOCAL_RANK"},
        {"RANK", "WORLD_SIZE", "LOCAL_RANK"},
        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"},
        {"SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID", "SLURM_NPROCS"},
    };

    /** This process's place in the job, and the variables it was read from (for messages). */
    private record Launch(int rank, int size, int localRank, String source, String convention) {
        String who() {
            return "rank " + rank + " of " + size + (source.isEmpty() ? "" : " (" + source + ")");
        }
    }

    /**
     * The first convention that has a rank or a size variable decides; it must have both. A partial
     * set is a launch mistake (a rank that silently ran alone would leave the real job waiting), except
     * Slurm's task 0 without a task count: sbatch without {@code -n} sets only SLURM_PROCID=0.
     */
    private static Launch launch(Map<String, String> env, Map<String, String> settings) {
        for (String[] c : CONVENTIONS) {
            boolean own = c[0].equals("UNICOMM_RANK");
            String r = own ? settings.get("unicomm.rank") : env.get(c[0]);
            String s = own ? settings.get("unicomm.world.size") : env.get(c[1]);
            String sizeName = c[1];
            if (s == null && c.length > 3 && env.get(c[3]) != null) {
                s = env.get(c[3]);
                sizeName = c[3];
            }
            if (r == null && s == null) continue;
            String l = own ? settings.get("unicomm.local.rank") : env.get(c[2]);
            if (r != null
                    && s == null
                    && c[0].equals("SLURM_PROCID")
                    && r.trim().equals("0"))
                return new Launch(
                        0,
                        1,
                        l == null ? -1 : parseInt(c[2], l),
                        "SLURM_PROCID=0 without SLURM_NTASKS: one task",
                        c[0]);
            if (r == null || s == null) {
                String set = r != null ? c[0] + "=" + r : sizeName + "=" + s;
                String missing = r != null ? c[1] : c[0];
                throw userError("incomplete launch variables: " + set
                        + (l != null ? " and " + c[2] + "=" + l + " are" : " is") + " set but "
                        + missing + " is not; set " + c[0] + " and " + c[1]
                        + " together (a rank that ran alone would leave the"
                        + " others waiting), or neither for a single-process job");
            }
            String source = c[0] + "=" + r + ", " + sizeName + "=" + s;
            return new Launch(
                    parseInt(c[0], r), parseInt(sizeName, s), l == null ? -1 : parseInt(c[2], l), source, c[0]);
        }
        return new Launch(0, 1, -1, "", "");
    }

    /**
     * What the launcher that gave this process its rank calls the job, so that a second job on the same
     * store port cannot take this job's ranks (see {@code Rendezvous.JOB_ID_PROPERTY}). Only that launcher's
     * name counts: it is the same on every rank it started, by construction (an srun step, an mpirun, a
     * torchrun rendezvous); a name from elsewhere (the Slurm job around a torchrun) might not be.
     * {@code null}: not known (unicomm's own variables: set UNICOMM_JOB_ID; torchrun without --rdzv-id).
     */
    private static String launcherJobId(String convention, Map<String, String> env) {
        return switch (convention) {
            case "RANK" -> {
                String id = env.get("TORCHELASTIC_RUN_ID");
                yield id == null || id.isBlank() || id.equals("none") ? null : "torchrun:" + id;
            }
            case "OMPI_COMM_WORLD_RANK" ->
                env.get("PMIX_NAMESPACE") != null
                        ? "pmix:" + env.get("PMIX_NAMESPACE")
                        : env.get("OMPI_MCA_ess_base_jobid") != null
                                ? "ompi:" + env.get("OMPI_MCA_ess_base_jobid")
                                : null;
            case "SLURM_PROCID" ->
                env.get("SLURM_JOB_ID") == null
                        ? null
                        : "slurm:" + env.get("SLURM_JOB_ID")
                                + (env.get("SLURM_STEP_ID") == null ? "" : "." + env.get("SLURM_STEP_ID"));
            default -> null;
        };
    }

    /**
     * A mistake in the launch environment, for the person who started the job: one line, so no stack
     * trace (its frames are unicomm's own and say nothing about what to fix) and no cause. (The same
     * as the store's LaunchMistake: the API reaches no internals but through Unicomm.)
     */
    private static IllegalArgumentException userError(String message) {
        IllegalArgumentException e = new IllegalArgumentException(message);
        e.setStackTrace(new StackTraceElement[0]);
        return e;
    }

    static CommConfig read(Map<String, String> env, Properties props) {
        Map<String, String> settings = new HashMap<>();
        // UNICOMM_FOO_BAR -> unicomm.foo.bar ; properties override the environment.
        env.forEach((k, v) -> {
            if (k.startsWith("UNICOMM_"))
                settings.put("unicomm." + k.substring(8).toLowerCase().replace('_', '.'), v);
        });
        for (String name : props.stringPropertyNames()) {
            if (name.startsWith("unicomm.")) settings.put(name, props.getProperty(name));
        }
        Launch launch = launch(env, settings);
        if (!settings.containsKey("unicomm.job.id")) {
            String job = launcherJobId(launch.convention(), env);
            if (job != null) settings.put("unicomm.job.id", job);
        }
        int rank = launch.rank, size = launch.size, localRank = launch.localRank < 0 ? launch.rank : launch.localRank;
        String host = null;
        int port = 0;
        String token = settings.get("unicomm.token");
        String store = settings.get("unicomm.store");
        if (store != null) {
            int colon = store.lastIndexOf(':');
            if (colon <= 0) throw userError("UNICOMM_STORE must be host:port, got '" + store + "'");
            host = store.substring(0, colon);
            port = parseInt("UNICOMM_STORE port", store.substring(colon + 1));
        } else if (size > 1) {
            String addr = env.get("MASTER_ADDR"), mport = env.get("MASTER_PORT");
            // mpirun and srun say where rank 0 runs; nobody needs to set MASTER_ADDR by hand there.
            var derived =
                    addr == null ? LauncherStore.derive(env, mport) : java.util.Optional.<LauncherStore.Derived>empty();
            if (derived.isPresent()) {
                var d = derived.get();
                if (d.host() == null)
                    throw userError(launch.who() + " was started by " + d.source()
                            + ", which does not say where rank 0 runs here: set " + d.missing());
                host = d.host();
                port = d.port();
                if (token == null) token = d.token();
            } else {
                if (addr == null && mport == null)
                    throw userError(launch.who()
                            + " has no rendezvous store: set UNICOMM_STORE=host:port, or MASTER_ADDR and MASTER_PORT"
                            + " (torchrun's names), to rank 0's address and a free port, the same on every rank; or start the job with"
                            + " 'bin/unicomm run -n " + size + "'");
                if (addr == null || mport == null)
                    throw userError(launch.who() + " cannot find the rendezvous store: "
                            + (addr == null ? "MASTER_PORT=" + mport : "MASTER_ADDR=" + addr) + " is set but "
                            + (addr == null ? "MASTER_ADDR" : "MASTER_PORT")
                            + " is missing; set both, or UNICOMM_STORE=host:port");
                host = addr;
                port = parseInt("MASTER_PORT", mport);
            }
        }
        String backend = settings.get("unicomm.backend");
        if (backend != null && backend.isBlank()) backend = null;
        Duration timeout = settings.containsKey("unicomm.timeout")
                ? parseDuration(settings.get("unicomm.timeout"))
                : CommConfig.DEFAULT_TIMEOUT;
        long heap = settings.containsKey("unicomm.heap.size")
                ? ByteSize.parse("UNICOMM_HEAP_SIZE (unicomm.heap.size)", settings.get("unicomm.heap.size"))
                : CommConfig.DEFAULT_HEAP_SIZE;
        boolean tls = Boolean.parseBoolean(settings.getOrDefault("unicomm.tls", "false"));
        try {
            return new CommConfig(backend, rank, size, localRank, host, port, token, tls, timeout, heap, settings);
        } catch (IllegalArgumentException e) {
            throw userError(
                    launch.source().isEmpty() ? e.getMessage() : e.getMessage() + " (from " + launch.source() + ")");
        }
    }

    private static int parseInt(String what, String v) {
        try {
            return Integer.parseInt(v.trim());
        } catch (NumberFormatException e) {
            throw userError(what + " must be an integer, got '" + v + "'");
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
            throw userError("UNICOMM_TIMEOUT must look like 30s, 500ms, 2m or 30, got '" + v + "'");
        }
    }
}
