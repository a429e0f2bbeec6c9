package dev.unicomm.cli;

import dev.unicomm.launch.JobLauncher;
import dev.unicomm.launch.JobResult;
import dev.unicomm.launch.JobSpec;
import dev.unicomm.launch.NodeLayout;
import dev.unicomm.spi.BackendRegistry;
import java.io.File;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code unicomm run}: starts an N-rank job on this host, like torchrun or oshrun. */
@Command(
        name = "run",
        mixinStandardHelpOptions = true,
        description = {
            "Starts N JVMs on this host running the same program (with --nnodes: this host's part of a job across hosts), "
                    + "with the rendezvous store set up: "
                    + "UNICOMM_RANK, UNICOMM_WORLD_SIZE, UNICOMM_LOCAL_RANK, UNICOMM_STORE and a fresh secret UNICOMM_TOKEN.",
            "Each output line is prefixed with its rank. If a rank fails, the others get --kill-grace to stop on their own, "
                    + "are then killed, and the first failure's exit code is returned (124 if --timeout hit first). "
                    + "A rank found stopped (SIGSTOP) when another fails is named as the cause.",
            "With --elastic (or UNICOMM_ELASTIC=true / -J-Dunicomm.elastic=true) the others are not killed after a rank dies: "
                    + "they may shrink() and go on. If they complete, the exit code is "
                    + JobLauncher.LOST_RANKS_EXIT_CODE
                    + " ('job completed after losing ranks [..]'); if they all fail too, it is the first failure's.",
            "The class path entries and the main class are checked before any rank starts.",
            "The ranks' class path is unicomm's own plus --cp and the jar, if one is given.",
            "Ranks exit when this launcher dies, however it dies (their standard input is a pipe from it); "
                    + "with --tls the job's key reaches them through that pipe, never as a file."
        },
        footer = {
            "",
            "Example:  unicomm run -n 4 --cp app.jar -- com.example.Main --steps 10",
            "Across hosts (on each host, I = 0..1, the same UNICOMM_TOKEN exported on both):",
            "          unicomm run --nnodes 2 --node-rank I --nproc-per-node 4 --master-addr 10.0.0.1 --cp app.jar -- com.example.Main"
        })
public final class RunCommand implements Callable<Integer> {
    /** Beyond this many JVMs per processor a job only thrashes (and 1000 JVMs take minutes just to start). */
    static final int RANKS_PER_PROCESSOR = 8;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(
            names = {"-n", "--ranks", "--nproc-per-node"},
            required = true,
            paramLabel = "N",
            description = "number of ranks (processes) this launcher starts on this host, 1..1024; more than "
                    + RANKS_PER_PROCESSOR + " per processor needs --oversubscribe")
    int ranks;

    @Option(
            names = "--nnodes",
            paramLabel = "NODES",
            defaultValue = "1",
            description =
                    "number of hosts, one launcher on each with the same -n (torchrun's name); ranks are numbered node-major")
    int nnodes;

    @Option(
            names = "--node-rank",
            paramLabel = "I",
            defaultValue = "0",
            description = "this host's index, 0..NODES-1 (with --nnodes)")
    int nodeRank;

    @Option(
            names = "--master-addr",
            paramLabel = "ADDR",
            description =
                    "address of node 0 that every host reaches; node 0's first rank serves the rendezvous store there (with --nnodes)")
    String masterAddr;

    @Option(
            names = "--master-port",
            paramLabel = "PORT",
            defaultValue = "" + NodeLayout.DEFAULT_PORT,
            description = "the store's port on node 0 (default ${DEFAULT-VALUE})")
    int masterPort;

    @Option(
            names = "--rdzv-endpoint",
            paramLabel = "ADDR:PORT",
            description = "--master-addr and --master-port in one (torchrun's form)")
    String rdzvEndpoint;

    @Option(
            names = "--backend",
            paramLabel = "NAME",
            description = "backend every rank uses (UNICOMM_BACKEND); default: the best available")
    String backend;

    @Option(
            names = {"--oversubscribe", "--force"},
            description =
                    "allow more than " + RANKS_PER_PROCESSOR + " ranks per processor of this host (each rank is a JVM)")
    boolean oversubscribe;

    @Option(names = "--tls", description = "run the rendezvous store over TLS with a fresh per-job key pair")
    boolean tls;

    @Option(
            names = "--timeout",
            paramLabel = "T",
            description = "kill the whole job after T (e.g. 90s, 5m, 500ms; plain number = seconds)")
    String timeout;

    @Option(
            names = "--wait-timeout",
            paramLabel = "T",
            description = "limit of every wait inside the ranks (UNICOMM_TIMEOUT); default 60s")
    String waitTimeout;

    @Option(
            names = "--kill-grace",
            paramLabel = "T",
            defaultValue = "10s",
            description =
                    "after a rank fails, how long the others may take to notice and exit on their own before they are killed "
                            + "(default ${DEFAULT-VALUE}: survivors notice within about 0.5 s even on a loaded host, then their JVMs shut down); "
                            + "not used with --elastic")
    String killGrace;

    @Option(
            names = "--elastic",
            description = "elastic mode (UNICOMM_ELASTIC=true for the ranks): when a rank dies the others "
                    + "may shrink() and go on; exit code " + JobLauncher.LOST_RANKS_EXIT_CODE + " if they complete")
    boolean elastic;

    @Option(
            names = {"--cp", "--classpath"},
            paramLabel = "CLASSPATH",
            description = "extra class path entries for the ranks")
    String classpath;

    @Option(
            names = {"-J", "--jvm-option"},
            paramLabel = "OPTION",
            description = "extra JVM option for every rank (repeatable), e.g. -J-Xmx2g")
    List<String> jvmOptions = new ArrayList<>();

    @Parameters(index = "0", paramLabel = "MAIN", description = "main class, or a jar run by its manifest's Main-Class")
    String target;

    @Parameters(
            index = "1..*",
            paramLabel = "ARGS",
            description = "arguments of the program (put -- before MAIN if they start with -)")
    List<String> args = new ArrayList<>();

    @Override
    public Integer call() {
        List<String> cp = new ArrayList<>(JobSpec.currentClasspath());
        if (classpath != null) for (String e : classpath.split(File.pathSeparator)) if (!e.isBlank()) cp.add(e);
        String mainClass = target;
        if (target.endsWith(".jar")) {
            Path jar = Path.of(target);
            mainClass = mainClassOf(jar);
            cp.add(jar.toAbsolutePath().toString());
        }
        int processors = Runtime.getRuntime().availableProcessors();
        if (!oversubscribe && ranks > RANKS_PER_PROCESSOR * processors)
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    "-n " + ranks + " would start " + ranks + " JVMs on a host with " + processors
                            + " processors; at most " + RANKS_PER_PROCESSOR * processors + " without --oversubscribe");
        if (backend != null && !backend.isBlank()) checkBackend(cp);
        JobSpec job;
        try {
            job = new JobSpec(
                    ranks,
                    JobSpec.currentJava(),
                    cp,
                    mainClass,
                    args,
                    jvmOptions,
                    Map.of(),
                    backend,
                    tls,
                    duration("--wait-timeout", waitTimeout),
                    duration("--timeout", timeout),
                    duration("--kill-grace", killGrace),
                    elastic);
            NodeLayout nodes = nodes();
            if (nodes != null) job = job.withNodes(nodes);
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        JobResult result = JobLauncher.run(job);
        return result.exitCode();
    }

    /** This launcher's place in a job across hosts, or {@code null} for a job of this host only. */
    private NodeLayout nodes() {
        String addr = masterAddr;
        int port = masterPort;
        if (rdzvEndpoint != null) {
            int colon = rdzvEndpoint.lastIndexOf(':');
            if (colon <= 0)
                throw new IllegalArgumentException("--rdzv-endpoint must be ADDR:PORT, got '" + rdzvEndpoint + "'");
            addr = rdzvEndpoint.substring(0, colon);
            try {
                port = Integer.parseInt(rdzvEndpoint.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--rdzv-endpoint must be ADDR:PORT, got '" + rdzvEndpoint + "'");
            }
        }
        if (nnodes == 1 && nodeRank == 0 && addr == null) return null;
        return new NodeLayout(nnodes, nodeRank, addr, port);
    }

    /** The ranks would each fail on an unknown backend name: say so once, listing the backends their class path has. */
    private void checkBackend(List<String> classpath) {
        List<URL> urls = new ArrayList<>();
        for (String e : classpath) {
            try {
                urls.add(Path.of(e).toUri().toURL());
            } catch (MalformedURLException | java.nio.file.InvalidPathException ignored) {
                // not a path the ranks can use either; the JVM will say so
            }
        }
        try (URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), RunCommand.class.getClassLoader())) {
            BackendRegistry found = BackendRegistry.load(loader);
            boolean known = found.providers().stream().anyMatch(p -> p.name().equals(backend));
            if (!known)
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "unknown backend '" + backend + "'; the ranks' class path has: " + found.knownNames());
        } catch (IOException e) {
            // closing the loader failed: nothing to report
        }
    }

    private String mainClassOf(Path jar) {
        if (!Files.isRegularFile(jar))
            throw new CommandLine.ParameterException(spec.commandLine(), "jar " + jar + " does not exist");
        try (JarFile file = new JarFile(jar.toFile())) {
            Manifest manifest = file.getManifest();
            String main = manifest == null ? null : manifest.getMainAttributes().getValue("Main-Class");
            if (main == null || main.isBlank())
                throw new CommandLine.ParameterException(
                        spec.commandLine(),
                        "jar " + jar + " names no Main-Class in its manifest; " + "run it as: unicomm run -n N --cp "
                                + jar + " -- your.MainClass");
            return main.trim();
        } catch (IOException e) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(), "cannot read jar " + jar + ": " + e.getMessage());
        }
    }

    /** {@code 500ms}, {@code 30s}, {@code 5m}, {@code 2h}, or plain seconds; null stays null. */
    private Duration duration(String option, String value) {
        if (value == null) return null;
        String v = value.trim().toLowerCase();
        try {
            if (v.endsWith("ms")) return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            if (v.endsWith("s")) return Duration.ofSeconds(Long.parseLong(v.substring(0, v.length() - 1)));
            if (v.endsWith("m")) return Duration.ofMinutes(Long.parseLong(v.substring(0, v.length() - 1)));
            if (v.endsWith("h")) return Duration.ofHours(Long.parseLong(v.substring(0, v.length() - 1)));
            return Duration.ofSeconds(Long.parseLong(v));
        } catch (NumberFormatException | ArithmeticException e) {
            throw new CommandLine.ParameterException(
                    spec.commandLine(),
                    option + " must look like 500ms, 30s, 5m, 2h or a number of seconds, got '" + value + "'");
        }
    }
}
