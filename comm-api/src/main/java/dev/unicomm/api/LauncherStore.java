package dev.unicomm.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where the rendezvous store is when a job was started by Open MPI's {@code mpirun} or Slurm's
 * {@code srun} and nobody set {@code UNICOMM_STORE} or {@code MASTER_ADDR}/{@code MASTER_PORT}: from
 * what those launchers already tell every rank. The port is derived from the job's id, so every rank of
 * one job computes the same one and two jobs rarely share it (set {@code MASTER_PORT} when they do).
 */
final class LauncherStore {
    private LauncherStore() {}

    /** Ports derived from a job id fall in {@code [BASE_PORT, BASE_PORT + PORT_SPAN)}. */
    static final int BASE_PORT = 29500, PORT_SPAN = 20000;

    /**
     * A derived store address (and, under Open MPI, a per-job secret), or why none can be derived.
     *
     * @param host   where rank 0 serves the store, or {@code null} when {@link #missing} says why not
     * @param port   its port
     * @param token  a secret every rank of this job shares, or {@code null}
     * @param source which launcher's variables it came from (for messages)
     * @param missing what to set instead, when {@code host} is {@code null}
     */
    record Derived(String host, int port, String token, String source, String missing) {}

    /** The store's address, if {@code env} is that of a rank mpirun or srun started ({@code port}: MASTER_PORT, or null). */
    static Optional<Derived> derive(Map<String, String> env, String port) {
        if (env.containsKey("OMPI_COMM_WORLD_SIZE")) return Optional.of(openMpi(env, port));
        if (env.containsKey("SLURM_NTASKS") && env.containsKey("SLURM_PROCID")) return Optional.of(slurm(env, port));
        return Optional.empty();
    }

    /**
     * Open MPI 4 gives every rank {@code OMPI_MCA_orte_hnp_uri} ({@code jobid;tcp://addr:port;…}: where
     * mpirun runs; its first host is rank 0's unless told otherwise), the job id, and a random per-job key
     * ({@code OMPI_MCA_orte_precondition_transports}) that only this job's processes see.
     */
    private static Derived openMpi(Map<String, String> env, String port) {
        String uri = env.get("OMPI_MCA_orte_hnp_uri");
        List<String> addrs = uri == null ? List.of() : tcpAddresses(uri);
        String jobId = env.get("OMPI_MCA_ess_base_jobid");
        String token = env.get("OMPI_MCA_orte_precondition_transports");
        if (addrs.isEmpty() || (port == null && jobId == null))
            return new Derived(
                    null,
                    0,
                    null,
                    "Open MPI",
                    "MASTER_ADDR (the address of rank 0's host) and MASTER_PORT, exported with mpirun -x (or UNICOMM_STORE=host:port)");
        return new Derived(
                addrs.getFirst(),
                port != null ? parsePort(port) : portOf(jobId),
                token,
                "Open MPI (mpirun's address, port from the job id)",
                null);
    }

    /** Slurm gives the step's node list (rank 0 runs on its first node) and the job and step ids. */
    private static Derived slurm(Map<String, String> env, String port) {
        String nodes = env.getOrDefault("SLURM_STEP_NODELIST", env.get("SLURM_JOB_NODELIST"));
        String first = nodes == null ? null : firstHost(nodes);
        String job = env.get("SLURM_JOB_ID");
        if (first == null || (port == null && job == null))
            return new Derived(
                    null,
                    0,
                    null,
                    "Slurm",
                    "MASTER_ADDR (the address of rank 0's host) and MASTER_PORT (or UNICOMM_STORE=host:port)");
        String id = job + "." + env.getOrDefault("SLURM_STEP_ID", "0");
        return new Derived(
                first,
                port != null ? parsePort(port) : portOf(id),
                null,
                "Slurm (the step's first node, port from the job and step id)",
                null);
    }

    private static final Pattern TCP = Pattern.compile("tcp://([0-9.]+):\\d+");

    /** The IPv4 addresses of an ORTE URI, non-loopback first (that is the one other hosts can reach). */
    static List<String> tcpAddresses(String uri) {
        List<String> out = new ArrayList<>(), loopback = new ArrayList<>();
        Matcher m = TCP.matcher(uri);
        while (m.find()) (m.group(1).startsWith("127.") ? loopback : out).add(m.group(1));
        out.addAll(loopback);
        return out;
    }

    /** The first host of a Slurm host list ({@code node[3-5,7],gpu1} gives {@code node3}). */
    static String firstHost(String list) {
        String s = list.strip();
        if (s.isEmpty()) return null;
        int bracket = s.indexOf('['), comma = s.indexOf(',');
        if (bracket < 0 || (comma >= 0 && comma < bracket)) return comma < 0 ? s : s.substring(0, comma);
        int close = s.indexOf(']', bracket);
        if (close < 0) return null;
        String first = s.substring(bracket + 1, close).split(",")[0].split("-")[0];
        return s.substring(0, bracket) + first + s.substring(close + 1).split(",")[0];
    }

    static int portOf(String jobId) {
        return BASE_PORT + Math.floorMod(jobId.hashCode() * 31 + 7, PORT_SPAN);
    }

    private static int parsePort(String v) {
        try {
            int p = Integer.parseInt(v.trim());
            if (p >= 1 && p <= 65535) return p;
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("MASTER_PORT must be a port number 1..65535, got '" + v + "'");
    }
}
