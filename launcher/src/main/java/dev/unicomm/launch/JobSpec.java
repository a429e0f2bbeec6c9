package dev.unicomm.launch;

import java.io.File;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What {@link JobLauncher} starts: {@code ranks} JVMs on this host, each running
 * {@code java [jvmOptions] -cp classpath mainClass args}.
 *
 * @param ranks          number of processes (PEs), 1..{@value #MAX_RANKS}
 * @param java           the {@code java} executable
 * @param classpath      class path entries of every rank
 * @param mainClass      the class whose {@code main} every rank runs
 * @param args           its arguments
 * @param jvmOptions     extra JVM options (after the launcher's own, so they can override them)
 * @param env            extra environment variables (the launcher's {@code UNICOMM_*} job variables win)
 * @param backend        backend name for {@code UNICOMM_BACKEND}, or {@code null} to let each rank choose
 * @param tls            whether the rendezvous store runs over TLS (a per-job key pair is created)
 * @param commTimeout    every wait's limit inside the ranks ({@code UNICOMM_TIMEOUT}), or {@code null} for their default
 * @param jobTimeout     wall-clock limit of the whole job, after which every rank is killed; {@code null} for none
 * @param killGrace      how long the other ranks may take to exit on their own after one failed, before they are killed
 *                       (not used in elastic mode, where survivors go on)
 * @param elastic        elastic mode: sets {@code UNICOMM_ELASTIC=true} for the ranks, and a rank's death does not end
 *                       the job (see {@link JobLauncher#isElastic}); {@code UNICOMM_ELASTIC=true} in {@code env} or the
 *                       launcher's environment, or {@code -Dunicomm.elastic=true} in {@code jvmOptions}, mean the same
 * @param nodes          this launcher's place in a job across hosts, or {@code null} when every rank runs here
 */
public record JobSpec(
        int ranks,
        String java,
        List<String> classpath,
        String mainClass,
        List<String> args,
        List<String> jvmOptions,
        Map<String, String> env,
        String backend,
        boolean tls,
        Duration commTimeout,
        Duration jobTimeout,
        Duration killGrace,
        boolean elastic,
        NodeLayout nodes) {

    /** Most ranks one launcher starts. */
    public static final int MAX_RANKS = 1024;
    /** Most ranks of a job across hosts. */
    public static final int MAX_WORLD = 65536;
    /**
     * Default time the surviving ranks get to exit after a failure. Survivors blocked in the store
     * notice within about half a second even on a loaded host (81-548 ms measured at load 7-17),
     * then their JVMs shut down; 3 s killed survivors of {@code bench moe} that were about to exit.
     */
    public static final Duration DEFAULT_KILL_GRACE = Duration.ofSeconds(10);

    public JobSpec {
        if (ranks < 1 || ranks > MAX_RANKS)
            throw new IllegalArgumentException("number of ranks must be in [1, " + MAX_RANKS + "], got " + ranks);
        if (java == null || java.isBlank()) throw new IllegalArgumentException("java executable must be given");
        if (mainClass == null || mainClass.isBlank()) throw new IllegalArgumentException("main class must be given");
        if (classpath == null || classpath.isEmpty())
            throw new IllegalArgumentException("class path must have at least one entry");
        for (String e : classpath)
            if (e == null || e.isBlank())
                throw new IllegalArgumentException("class path entries must not be blank: " + classpath);
        if (backend != null && backend.isBlank()) backend = null;
        requirePositive("comm timeout", commTimeout, true);
        requirePositive("job timeout", jobTimeout, true);
        requirePositive("kill grace", killGrace, false);
        classpath = List.copyOf(classpath);
        args = List.copyOf(args);
        jvmOptions = List.copyOf(jvmOptions);
        env = Map.copyOf(env);
        if (nodes != null && (long) nodes.nnodes() * ranks > MAX_WORLD)
            throw new IllegalArgumentException(
                    nodes.nnodes() + " nodes x " + ranks + " ranks is more than " + MAX_WORLD + " ranks in all");
    }

    /** As the canonical constructor, on one host. */
    public JobSpec(
            int ranks,
            String java,
            List<String> classpath,
            String mainClass,
            List<String> args,
            List<String> jvmOptions,
            Map<String, String> env,
            String backend,
            boolean tls,
            Duration commTimeout,
            Duration jobTimeout,
            Duration killGrace,
            boolean elastic) {
        this(
                ranks,
                java,
                classpath,
                mainClass,
                args,
                jvmOptions,
                env,
                backend,
                tls,
                commTimeout,
                jobTimeout,
                killGrace,
                elastic,
                null);
    }

    /** Ranks of this host's launcher in the whole job: {@code ranks}, or {@code nnodes * ranks} across hosts. */
    public int worldSize() {
        return nodes == null ? ranks : nodes.nnodes() * ranks;
    }

    /** As the canonical constructor, elastic mode off unless the environment or JVM options turn it on. */
    public JobSpec(
            int ranks,
            String java,
            List<String> classpath,
            String mainClass,
            List<String> args,
            List<String> jvmOptions,
            Map<String, String> env,
            String backend,
            boolean tls,
            Duration commTimeout,
            Duration jobTimeout,
            Duration killGrace) {
        this(
                ranks,
                java,
                classpath,
                mainClass,
                args,
                jvmOptions,
                env,
                backend,
                tls,
                commTimeout,
                jobTimeout,
                killGrace,
                false);
    }

    private static void requirePositive(String what, Duration d, boolean nullable) {
        if (d == null && nullable) return;
        if (d == null || d.isNegative() || d.isZero())
            throw new IllegalArgumentException(what + " must be positive, got " + d);
    }

    /** {@code ranks} copies of {@code mainClass} on this JVM's java and class path, with defaults for the rest. */
    public static JobSpec of(int ranks, String mainClass, String... args) {
        return new JobSpec(
                ranks,
                currentJava(),
                currentClasspath(),
                mainClass,
                Arrays.asList(args),
                List.of(),
                Map.of(),
                null,
                false,
                null,
                null,
                DEFAULT_KILL_GRACE,
                false,
                null);
    }

    /** The {@code java} executable running this JVM. */
    public static String currentJava() {
        return ProcessHandle.current()
                .info()
                .command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    }

    /** This JVM's class path entries ({@code java.class.path}). */
    public static List<String> currentClasspath() {
        String cp = System.getProperty("java.class.path", "");
        return Arrays.stream(cp.split(File.pathSeparator))
                .filter(s -> !s.isBlank())
                .toList();
    }

    public JobSpec withClasspath(List<String> entries) {
        return copy(d -> d.classpath = entries);
    }

    public JobSpec withJvmOptions(List<String> options) {
        return copy(d -> d.jvmOptions = options);
    }

    public JobSpec withEnv(Map<String, String> variables) {
        return copy(d -> d.env = variables);
    }

    public JobSpec withBackend(String name) {
        return copy(d -> d.backend = name);
    }

    public JobSpec withTls(boolean on) {
        return copy(d -> d.tls = on);
    }

    public JobSpec withCommTimeout(Duration t) {
        return copy(d -> d.commTimeout = t);
    }

    public JobSpec withJobTimeout(Duration t) {
        return copy(d -> d.jobTimeout = t);
    }

    public JobSpec withKillGrace(Duration t) {
        return copy(d -> d.killGrace = t);
    }

    /** This launcher's part of a job across hosts ({@code null}: the whole job runs here). */
    public JobSpec withNodes(NodeLayout layout) {
        return copy(d -> d.nodes = layout);
    }

    public JobSpec withElastic(boolean on) {
        return copy(d -> d.elastic = on);
    }

    /** This spec with the fields that {@code change} sets replaced; the canonical constructor checks the result. */
    private JobSpec copy(Consumer<Draft> change) {
        Draft d = new Draft(this);
        change.accept(d);
        return d.build();
    }

    /** A spec's fields, for the with-ers: each sets one and builds a new spec. */
    private static final class Draft {
        int ranks;
        String java;
        List<String> classpath;
        String mainClass;
        List<String> args;
        List<String> jvmOptions;
        Map<String, String> env;
        String backend;
        boolean tls;
        Duration commTimeout;
        Duration jobTimeout;
        Duration killGrace;
        boolean elastic;
        NodeLayout nodes;

        Draft(JobSpec spec) {
            ranks = spec.ranks;
            java = spec.java;
            classpath = spec.classpath;
            mainClass = spec.mainClass;
            args = spec.args;
            jvmOptions = spec.jvmOptions;
            env = spec.env;
            backend = spec.backend;
            tls = spec.tls;
            commTimeout = spec.commTimeout;
            jobTimeout = spec.jobTimeout;
            killGrace = spec.killGrace;
            elastic = spec.elastic;
            nodes = spec.nodes;
        }

        JobSpec build() {
            return new JobSpec(
                    ranks,
                    java,
                    classpath,
                    mainClass,
                    args,
                    jvmOptions,
                    env,
                    backend,
                    tls,
                    commTimeout,
                    jobTimeout,
                    killGrace,
                    elastic,
                    nodes);
        }
    }
}
