package dev.unicomm.api;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;

/**
 * How to open a communicator: which backend, this process's rank, the job size, where the
 * rendezvous store is, and the limits. {@link #fromEnvironment()} reads the conventions people
 * already use, first match wins:
 * <ol>
 *   <li>{@code UNICOMM_RANK}, {@code UNICOMM_WORLD_SIZE}, {@code UNICOMM_LOCAL_RANK}, {@code UNICOMM_STORE=host:port}</li>
 *   <li>torchrun: {@code RANK}, {@code WORLD_SIZE}, {@code LOCAL_RANK}, {@code MASTER_ADDR}, {@code MASTER_PORT}</li>
 *   <li>Open MPI: {@code OMPI_COMM_WORLD_RANK}, {@code OMPI_COMM_WORLD_SIZE}, {@code OMPI_COMM_WORLD_LOCAL_RANK}</li>
 *   <li>Slurm: {@code SLURM_PROCID}, {@code SLURM_NTASKS}, {@code SLURM_LOCALID}</li>
 * </ol>
 * Without any, the job is a single PE (rank 0 of 1). The first convention with a rank or a size
 * variable set must have both (a one-line {@link IllegalArgumentException} names what is set and what
 * is missing; Slurm's {@code SLURM_PROCID=0} alone, as sbatch without {@code -n} sets it, is one task),
 * and a job of several ranks needs a store address ({@code UNICOMM_STORE}, or both {@code MASTER_ADDR}
 * and {@code MASTER_PORT}). {@code UNICOMM_JOB_ID}, or the launcher's own job id (torchrun's
 * {@code TORCHELASTIC_RUN_ID}, Open MPI's {@code PMIX_NAMESPACE}, Slurm's job and step), keeps a second
 * job on the same port from taking this job's ranks. System properties {@code unicomm.*} override
 * environment variables {@code UNICOMM_*} of the same name.
 *
 * @param backend   backend name, or {@code null} to pick the highest-priority available one
 * @param rank      this PE's rank
 * @param worldSize number of PEs
 * @param localRank rank among the PEs of this host (selects the device)
 * @param storeHost rendezvous host (rank 0 serves the store there)
 * @param storePort rendezvous port
 * @param token     shared secret every rank presents to the store ({@code null}: none)
 * @param tls       whether the store runs over TLS
 * @param timeout   every wait's limit
 * @param heapSize  symmetric heap bytes per PE
 * @param properties every {@code unicomm.*} setting seen, for backend-specific options
 */
public record CommConfig(
        String backend,
        int rank,
        int worldSize,
        int localRank,
        String storeHost,
        int storePort,
        String token,
        boolean tls,
        Duration timeout,
        long heapSize,
        Map<String, String> properties) {

    /** Default symmetric heap per PE: 256 MiB. */
    public static final long DEFAULT_HEAP_SIZE = 256L << 20;
    /** Default timeout of every wait: 60 s. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(60);

    public CommConfig {
        if (worldSize < 1) throw new IllegalArgumentException("world size must be >= 1, got " + worldSize);
        if (rank < 0 || rank >= worldSize)
            throw new IllegalArgumentException("rank must be in [0, " + worldSize + "), got " + rank);
        if (localRank < 0) throw new IllegalArgumentException("local rank must be >= 0, got " + localRank);
        if (storePort < 0 || storePort > 65535)
            throw new IllegalArgumentException("store port must be in [0, 65535], got " + storePort);
        if (timeout == null || timeout.isNegative() || timeout.isZero())
            throw new IllegalArgumentException("timeout must be positive, got " + timeout);
        if (heapSize <= 0) throw new IllegalArgumentException("heap size must be > 0, got " + heapSize);
        if (worldSize > 1 && (storeHost == null || storeHost.isBlank()))
            throw new IllegalArgumentException(
                    "a job of " + worldSize
                            + " ranks needs a rendezvous store: set UNICOMM_STORE=host:port (or MASTER_ADDR/MASTER_PORT), or start it with 'unicomm run'");
        properties = Map.copyOf(properties);
    }

    /** A single-PE job on the given backend (or the default one for {@code null}). */
    public static CommConfig single(String backend) {
        return new CommConfig(backend, 0, 1, 0, null, 0, null, false, DEFAULT_TIMEOUT, DEFAULT_HEAP_SIZE, Map.of());
    }

    /** Reads this process's environment and system properties. */
    public static CommConfig fromEnvironment() {
        return fromEnvironment(System.getenv(), System.getProperties());
    }

    /** Reads the given environment and properties (for tests and launchers). */
    public static CommConfig fromEnvironment(Map<String, String> env, Properties props) {
        return EnvironmentReader.read(env, props);
    }

    /** A copy with another backend name. */
    public CommConfig withBackend(String name) {
        return new CommConfig(
                name, rank, worldSize, localRank, storeHost, storePort, token, tls, timeout, heapSize, properties);
    }

    /** A copy with another timeout. */
    public CommConfig withTimeout(Duration t) {
        return new CommConfig(
                backend, rank, worldSize, localRank, storeHost, storePort, token, tls, t, heapSize, properties);
    }

    /** A copy with another heap size. */
    public CommConfig withHeapSize(long bytes) {
        return new CommConfig(
                backend, rank, worldSize, localRank, storeHost, storePort, token, tls, timeout, bytes, properties);
    }

    /**
     * A backend-specific setting {@code unicomm.KEY} (system property, or the variable {@code UNICOMM_KEY}
     * with dots and underscores as underscores, in any case), or {@code def}. {@code key} is given
     * without the {@code unicomm.} prefix, e.g. {@code nvshmem.moe.sms} or {@code rdma.gid_index}.
     */
    public String property(String key, String def) {
        String v = properties.get(key);
        if (v == null) v = properties.get("unicomm." + key);
        // Environment names arrive lower-cased with every '_' turned into '.'.
        if (v == null)
            v = properties.get(
                    "unicomm." + key.toLowerCase(java.util.Locale.ROOT).replace('_', '.'));
        return v == null ? def : v;
    }

    /** Elastic mode ({@code unicomm.elastic=true} / {@code UNICOMM_ELASTIC=true}): see {@link Capability#ELASTIC}. */
    public boolean elastic() {
        return Boolean.parseBoolean(property("elastic", "false"));
    }

    /** A copy for rank {@code newRank} of a job of {@code newSize} ranks (a shrunken communicator). */
    public CommConfig withRank(int newRank, int newSize) {
        return new CommConfig(
                backend, newRank, newSize, localRank, storeHost, storePort, token, tls, timeout, heapSize, properties);
    }

    @Override
    public String toString() {
        // Never print the token.
        return "CommConfig[backend=" + backend + ", rank=" + rank + "/" + worldSize + ", localRank=" + localRank
                + ", store=" + storeHost + ":" + storePort + ", token=" + (token == null ? "none" : "***")
                + ", tls=" + tls + ", timeout=" + timeout + ", heapSize=" + heapSize + "]";
    }
}
