package dev.unicomm.internal.rendezvous;

import dev.unicomm.api.CommConfig;
import dev.unicomm.spi.Store;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import javax.net.ssl.SSLContext;

/** Connects this process to the job's rendezvous store. */
public final class Rendezvous {
    private Rendezvous() {}

    /** Longest time a new connection to the host may take to authenticate. */
    private static final Duration HELLO_LIMIT = Duration.ofSeconds(10);
    /**
     * The explicit opt-in to a store without a token ({@code UNICOMM_ALLOW_NO_TOKEN=true} or
     * {@code -Dunicomm.allow.no.token=true}): then anyone who can reach the port can join the job.
     */
    public static final String ALLOW_NO_TOKEN_PROPERTY = "allow.no.token";

    /**
     * A single-PE job gets an in-process store. In a larger job rank 0 starts the TCP store on
     * {@code storeHost:storePort} and every rank (rank 0 included) connects to it, retrying until
     * the configured timeout; the token and TLS settings of {@code config} apply.
     *
     * @throws IllegalArgumentException if a multi-rank job has no fixed store port, no token (unless
     *         {@value #ALLOW_NO_TOKEN_PROPERTY} opts out), or TLS on without a keystore
     * @throws dev.unicomm.api.CommTimeoutException if the store could not be reached in time
     * @throws dev.unicomm.api.CommException if the store rejected this rank or rank 0 cannot serve on the port
     */
    public static Store connect(CommConfig config) {
        if (config.worldSize() == 1) return new LocalStore(config.timeout());
        if (config.storePort() == 0)
            throw LaunchMistake.of(
                    "a job of " + config.worldSize() + " ranks needs a fixed rendezvous port; got port 0 "
                            + "(set UNICOMM_STORE=host:port or MASTER_PORT, or start the job with 'unicomm run')");
        if (config.token() == null && !Boolean.parseBoolean(config.property(ALLOW_NO_TOKEN_PROPERTY, "false")))
            throw LaunchMistake.of("rank " + config.rank() + " of " + config.worldSize() + ": the rendezvous store at "
                    + config.storeHost() + ":" + config.storePort()
                    + " would accept anyone who can reach it, because no token is set: "
                    + "give every rank the same secret in UNICOMM_TOKEN (e.g. export UNICOMM_TOKEN=$(openssl rand -hex 32) before "
                    + "torchrun/mpirun), start the job with 'unicomm run' (it creates one), or opt out explicitly with "
                    + "UNICOMM_ALLOW_NO_TOKEN=true");
        SSLContext ssl = config.tls() ? StoreTls.fromConfig(config) : null;
        StoreServer server = null;
        if (config.rank() == 0) {
            InetAddress bind;
            try {
                bind = InetAddress.getByName(config.storeHost());
            } catch (UnknownHostException e) {
                throw LaunchMistake.of("rendezvous host '" + config.storeHost() + "' cannot be resolved ("
                        + e.getMessage() + "); set MASTER_ADDR or UNICOMM_STORE to rank 0's address");
            }
            Duration hello = config.timeout().compareTo(HELLO_LIMIT) < 0 ? config.timeout() : HELLO_LIMIT;
            try {
                server = StoreServer.start(
                                bind,
                                config.storePort(),
                                config.worldSize(),
                                config.token(),
                                jobId(config),
                                ssl,
                                hello,
                                config.elastic())
                        .watchLiveness(Liveness.silenceLimit(config.timeout()));
            } catch (UncheckedIOException e) {
                // The message already carries the system's words; a cause would only print them again.
                throw new dev.unicomm.api.CommException(e.getMessage());
            }
        }
        try {
            TcpStore store = TcpStore.connect(
                            config.storeHost(),
                            config.storePort(),
                            config.rank(),
                            config.worldSize(),
                            config.token(),
                            jobId(config),
                            ssl,
                            config.timeout(),
                            server)
                    .keepAlive(Liveness.silenceLimit(config.timeout()));
            return config.elastic() ? ElasticStore.atConnect(store, config.timeout()) : store;
        } catch (RuntimeException e) {
            if (server != null) server.close();
            throw e;
        }
    }

    /**
     * The job's identity, {@value #JOB_ID_PROPERTY}: {@code UNICOMM_JOB_ID}, or what the launcher that gave
     * this process its rank calls the job (read by {@code CommConfig.fromEnvironment}). Two jobs on one
     * port then cannot take each other's ranks even with the same token; {@code null}: unknown.
     */
    static String jobId(CommConfig config) {
        String id = config.property(JOB_ID_PROPERTY, null);
        return id == null || id.isBlank() ? null : id;
    }

    /** Setting that names the job ({@code UNICOMM_JOB_ID}, or derived from the launcher's variables). */
    public static final String JOB_ID_PROPERTY = "job.id";
}
