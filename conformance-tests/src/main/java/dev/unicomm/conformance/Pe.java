package dev.unicomm.conformance;

import dev.unicomm.api.CommConfig;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.Unicomm;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What a rule's {@link Body} gets on each rank: the suite's communicator (opened once per worker
 * and shared by the suite's rules) and ways to open more communicators of the same job.
 */
public final class Pe {
    private final Communicator comm;
    private final String rule;
    private final List<Integer> freshPorts;
    private final long heapSize;
    private int nextPort;
    private String value = "";
    private SideChannel side;

    Pe(Communicator comm, String rule, List<Integer> freshPorts, long heapSize) {
        this.comm = comm;
        this.rule = rule;
        this.freshPorts = freshPorts;
        this.heapSize = heapSize;
    }

    /** The suite's communicator over all ranks. */
    public Communicator comm() {
        if (comm == null)
            throw new IllegalStateException(
                    "this suite's workers run without a communicator (connectAtStart() is false)");
        return comm;
    }

    /** This worker's rank in the job. */
    public int rank() {
        return Integer.parseInt(System.getenv("UNICOMM_RANK"));
    }

    /** The number of ranks in the job. */
    public int size() {
        return Integer.parseInt(System.getenv("UNICOMM_WORLD_SIZE"));
    }

    /** Name of the backend under test. */
    public String backend() {
        return System.getenv("UNICOMM_BACKEND");
    }

    /** The communicators' wait timeout in this job. */
    public Duration timeout() {
        return KitSettings.parseDuration("UNICOMM_TIMEOUT", System.getenv("UNICOMM_TIMEOUT"));
    }

    /** Heap bytes per PE the kit configured. */
    public long heapSize() {
        return heapSize;
    }

    /** Id of the rule being run (the test method's name). */
    public String rule() {
        return rule;
    }

    /**
     * Configuration for another communicator over all ranks with a fresh rendezvous store. Collective
     * in the sense that every rank must ask the same number of times, in the same order.
     */
    public CommConfig freshConfig() {
        if (nextPort >= freshPorts.size())
            throw new IllegalStateException("a rule may open at most " + freshPorts.size() + " extra communicators");
        Map<String, String> env = new HashMap<>(System.getenv());
        // on the job's rendezvous host (rank 0's), which every rank reaches: loopback on one host, an address of rank
        // 0's host across hosts
        String job = System.getenv().getOrDefault("UNICOMM_STORE", "127.0.0.1:0");
        env.put("UNICOMM_STORE", job.substring(0, job.lastIndexOf(':') + 1) + freshPorts.get(nextPort++));
        // the worker's system properties carry the run's -J/-D settings: every communicator the kit opens uses them
        return CommConfig.fromEnvironment(env, runSettings());
    }

    /**
     * The run's settings as system properties of this worker ({@code -J-Dunicomm.…} of {@code unicomm
     * conformance}, the suite's {@code workerJvmArgs()}), without those that name this job's place (rank,
     * size, store), which the extra communicator sets itself: properties would override them.
     */
    static java.util.Properties runSettings() {
        java.util.Properties p = new java.util.Properties();
        for (String k : System.getProperties().stringPropertyNames()) {
            if (!JOB_PLACE.contains(k)) p.setProperty(k, System.getProperty(k));
        }
        return p;
    }

    private static final java.util.Set<String> JOB_PLACE =
            java.util.Set.of("unicomm.rank", "unicomm.world.size", "unicomm.local.rank", "unicomm.store");

    /** Opens another communicator over all ranks (collective). */
    public Communicator connectAnother() {
        return Unicomm.connect(freshConfig());
    }

    /**
     * Opens a one-PE communicator of the backend under test, private to this rank (with the job's
     * backend settings, e.g. {@code UNICOMM_SHM_DIR}).
     */
    public Communicator connectSingle(Duration timeout) {
        Map<String, String> env = new HashMap<>(System.getenv());
        env.put("UNICOMM_RANK", "0");
        env.put("UNICOMM_WORLD_SIZE", "1");
        env.put("UNICOMM_LOCAL_RANK", Integer.toString(rank()));
        env.remove("UNICOMM_STORE");
        return Unicomm.connect(CommConfig.fromEnvironment(env, runSettings())
                .withTimeout(timeout)
                .withHeapSize(heapSize));
    }

    /**
     * The rule's side channel: a small key-value store of the job that does not go through the backend
     * (its own rendezvous store on a fresh port), for telling a target that a completion call has
     * returned. Collective the first time: every rank of a rule that uses it must call this, before
     * anything that can fail. Closed by the kit when the body ends.
     */
    public SideChannel sideChannel() {
        if (side == null) side = SideChannel.open(freshConfig(), timeout());
        return side;
    }

    /** Closes what the body opened through this Pe (the side channel). */
    void closeExtras() {
        if (side != null) side.close();
        side = null;
    }

    /** Hands {@code v} to the parent, which sees every rank's value in {@link RankResult#value()}. */
    public void report(Object v) {
        value = String.valueOf(v);
    }

    String value() {
        return value;
    }
}
