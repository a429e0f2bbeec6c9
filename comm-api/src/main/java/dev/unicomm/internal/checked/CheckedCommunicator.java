package dev.unicomm.internal.checked;

import dev.unicomm.api.BackendReport;
import dev.unicomm.api.Capability;
import dev.unicomm.api.Collectives;
import dev.unicomm.api.CommConfig;
import dev.unicomm.api.Communicator;
import dev.unicomm.api.DeviceRuntime;
import dev.unicomm.api.Endpoints;
import dev.unicomm.api.ExpertMask;
import dev.unicomm.api.HostTopology;
import dev.unicomm.api.Memory;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.RankFailedException;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.SymmetricHeap;
import dev.unicomm.api.Team;
import dev.unicomm.api.UnsupportedCapabilityException;
import dev.unicomm.internal.rendezvous.ElasticStore;
import dev.unicomm.spi.BackendCommunicator;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.CollectivesProvider;
import dev.unicomm.spi.CommBackendProvider;
import dev.unicomm.spi.MoeProvider;
import dev.unicomm.spi.Store;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The communicator users hold: validates every call, then delegates to the backend. Owns the
 * backend communicator and the rendezvous store.
 */
public final class CheckedCommunicator implements Communicator {
    private static final System.Logger LOG = System.getLogger("dev.unicomm");

    private final BackendCommunicator raw;
    private final BackendReport backend;
    private final CommConfig config;
    private final Store store;
    private final Set<Capability> capabilities;
    private final int rank;
    private final int size;
    private final CheckedHeap heap;
    private final CheckedRma rma;
    private final CheckedTeam world;
    private final Set<CheckedBuffer> live = ConcurrentHashMap.newKeySet();
    private final CallLedger calls;
    private volatile Collectives collectives;
    /** MoE buffers open now, and the algorithm counts of those closed (guarded by {@code moeBuffers}). */
    private final Set<CheckedMoe> moeBuffers = new java.util.HashSet<>();

    private final AlgorithmTally closedMoe = new AlgorithmTally();
    private volatile boolean open = true;
    private volatile boolean released;
    /** Reopens the backend among the survivors in {@link #shrink()}; {@code null}: cannot shrink. */
    private final CommBackendProvider provider;
    /** Every job rank's host (job ranks, as {@link #jobRanks()} numbers them). */
    private final HostTopology jobHosts;

    private final HostTopology topology;
    private volatile Team nodeTeam;

    public CheckedCommunicator(BackendCommunicator raw, BackendReport backend, CommConfig config, Store store) {
        this(raw, backend, config, store, null);
    }

    /** As the four-argument constructor; {@code provider} lets an elastic communicator {@link #shrink()}. */
    public CheckedCommunicator(
            BackendCommunicator raw,
            BackendReport backend,
            CommConfig config,
            Store store,
            CommBackendProvider provider) {
        this(raw, backend, config, store, provider, null);
    }

    /**
     * As the five-argument constructor, with the job's hosts as {@link HostAgreement} agreed them
     * ({@code null}: every rank on this host).
     */
    public CheckedCommunicator(
            BackendCommunicator raw,
            BackendReport backend,
            CommConfig config,
            Store store,
            CommBackendProvider provider,
            HostTopology jobHosts) {
        this.provider = provider;
        this.raw = raw;
        this.backend = backend;
        this.config = config;
        this.store = store;
        this.capabilities = backend.capabilities();
        this.rank = raw.rank();
        this.size = raw.size();
        this.calls = new CallLedger(raw.callAgreement().orElse(null), store, rank, config.timeout());
        this.heap = new CheckedHeap(this, raw.heap());
        this.rma = new CheckedRma(this, raw.rma());
        this.world = new CheckedTeam(this, raw.world(), true);
        int[] job = jobRanks();
        this.jobHosts = jobHosts != null
                ? jobHosts
                : HostTopology.singleHost(
                        0, java.util.Arrays.stream(job).max().orElse(0) + 1, HostAgreement.hostname());
        this.topology = this.jobHosts.restrict(job, rank);
    }

    /** Starts timing an open for JFR; hand the result to {@link #opened(CommOpenEvent)}. */
    public static CommOpenEvent opening() {
        CommOpenEvent e = new CommOpenEvent();
        e.begin();
        return e;
    }

    /** Records the open that {@code e} timed (JFR event + a debug log line). */
    public void opened(CommOpenEvent e) {
        e.end();
        if (e.shouldCommit()) {
            e.backend = backend.name();
            e.rank = rank;
            e.size = size;
            e.heapBytes = config.heapSize();
            e.commit();
        }
        LOG.log(
                Level.DEBUG,
                "opened communicator: backend {0}, rank {1} of {2}, heap {3} bytes",
                backend.name(),
                rank,
                size,
                config.heapSize());
    }

    void ensureOpen() {
        if (!open)
            throw new IllegalStateException(
                    "communicator (backend " + backend.name() + ", rank " + rank + ") is closed");
    }

    boolean isOpen() {
        return open;
    }

    /** Whether {@link #shrink()} released this communicator (its resources then close quietly: there is nothing left to free). */
    boolean released() {
        return released;
    }

    void remember(CheckedBuffer b) {
        live.add(b);
    }

    void forget(CheckedBuffer b) {
        live.remove(b);
    }

    /** Our open buffer → the backend's buffer; anything else is an error naming the argument. */
    SymmetricBuffer unwrap(String what, SymmetricBuffer buf) {
        ensureOpen();
        if (buf instanceof CheckedBuffer cb && cb.owner == this) {
            cb.ensureOpen(what);
            return cb.raw;
        }
        if (buf == null) throw new IllegalArgumentException(what + " must not be null");
        throw new IllegalArgumentException(
                what + ": " + buf + " was not allocated from this communicator's symmetric heap");
    }

    /** Local memory the backend accepts; our symmetric buffers are unwrapped. */
    Memory unwrapLocal(String what, Memory mem) {
        if (mem instanceof SymmetricBuffer sb) return unwrap(what, sb);
        ensureOpen();
        if (mem == null) throw new IllegalArgumentException(what + " must not be null");
        if (!raw.acceptsLocal(mem.kind()))
            throw new IllegalArgumentException(what + ": backend '" + backend.name() + "' cannot use " + mem.kind()
                    + " memory here (heap memory kind: " + raw.heap().kind() + ")");
        return mem;
    }

    /** The backend's team behind one of our teams. */
    Team unwrap(String what, Team team) {
        ensureOpen();
        if (team instanceof CheckedTeam ct && ct.owner == this) {
            ct.ensureOpen();
            return ct.raw;
        }
        if (team == null) throw new IllegalArgumentException(what + " must not be null");
        throw new IllegalArgumentException(what + ": team does not belong to this communicator");
    }

    /** Sequence/kind agreement of collective calls. */
    CallLedger calls() {
        return calls;
    }

    /** The world team (its call counter is the one of world-wide calls). */
    CheckedTeam worldTeam() {
        return world;
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int size() {
        return size;
    }

    @Override
    public BackendReport backend() {
        return backend;
    }

    @Override
    public Set<Capability> capabilities() {
        return capabilities;
    }

    @Override
    public Duration timeout() {
        return config.timeout();
    }

    @Override
    public SymmetricHeap heap() {
        ensureOpen();
        return heap;
    }

    @Override
    public Rma rma() {
        ensureOpen();
        return rma;
    }

    @Override
    public Team world() {
        ensureOpen();
        return world;
    }

    /** The configuration this communicator was opened with. */
    public CommConfig config() {
        return config;
    }

    /** The job's rendezvous store (for portable algorithms that need out-of-band agreement). */
    public Store store() {
        return store;
    }

    @Override
    public void barrier() {
        ensureOpen();
        BarrierEvent e = new BarrierEvent();
        e.begin();
        calls.barrier(world.calls, world.raw, raw::barrier);
        e.end();
        if (e.shouldCommit()) {
            e.rank = rank;
            e.teamSize = size;
            e.commit();
        }
    }

    @Override
    public Collectives collectives() {
        ensureOpen();
        Collectives c = collectives;
        if (c == null) {
            synchronized (this) {
                if (collectives == null) collectives = makeCollectives();
                c = collectives;
            }
        }
        return c;
    }

    private Collectives makeCollectives() {
        if (has(Capability.NATIVE_COLLECTIVES)) {
            var nat = raw.nativeCollectives();
            if (nat.isPresent()) return new CheckedCollectives(this, nat.get(), true);
        }
        for (CollectivesProvider p : ServiceLoader.load(CollectivesProvider.class)) {
            return new CheckedCollectives(this, p.create(this, config), false);
        }
        throw new UnsupportedCapabilityException(
                backend.name(),
                Capability.NATIVE_COLLECTIVES,
                "collectives: the backend has none of its own and dev.unicomm:collectives is not on the class path");
    }

    @Override
    public java.util.Map<String, Long> algorithmCounts() {
        java.util.Map<String, Long> m = new java.util.TreeMap<>();
        if (collectives instanceof CheckedCollectives cc) m.putAll(cc.algorithmCounts());
        synchronized (moeBuffers) {
            closedMoe.into(m);
            for (CheckedMoe b : moeBuffers) b.algorithmCounts().forEach((k, n) -> m.merge(k, n, Long::sum));
        }
        return m;
    }

    void moeOpened(CheckedMoe b) {
        synchronized (moeBuffers) {
            moeBuffers.add(b);
        }
    }

    /** Keeps a closing buffer's counts: {@link #algorithmCounts()} covers every call since connect. */
    void moeClosed(CheckedMoe b) {
        synchronized (moeBuffers) {
            if (moeBuffers.remove(b)) closedMoe.addAll(b.algorithmCounts());
        }
    }

    @Override
    public MoeBuffer moe(MoeConfig config) {
        ensureOpen();
        Checks.notNull("MoE config", config);
        return calls.call(
                world.calls,
                world.raw,
                CallLedger.Op.MOE_OPEN,
                () -> {
                    if (config.numExperts() % size != 0)
                        throw new IllegalArgumentException("numExperts (" + config.numExperts()
                                + ") must be divisible by the number of ranks (" + size + ")");
                    return CallWords.moeOpen(config, null);
                },
                () -> openMoe(config));
    }

    /**
     * The implementation underneath is a plain buffer of the active ranks' experts ({@link MaskedExperts});
     * every rank must pass the same mask (it is part of the call's agreement).
     */
    @Override
    public MoeBuffer moe(MoeConfig config, ExpertMask mask) {
        ensureOpen();
        Checks.notNull("MoE config", config);
        Checks.notNull("expert mask", mask);
        MoeConfig[] inner = new MoeConfig[1];
        return calls.call(
                world.calls,
                world.raw,
                CallLedger.Op.MOE_OPEN,
                () -> {
                    if (config.numExperts() % mask.jobSize() != 0)
                        throw new IllegalArgumentException(
                                "numExperts (" + config.numExperts() + ") must be divisible by the mask's job size ("
                                        + mask.jobSize() + "): experts are placed over the original job");
                    if (mask.activeCount() != size)
                        throw new IllegalArgumentException(
                                mask + " names " + mask.activeCount() + " active ranks but this communicator has "
                                        + size + ": active job rank activeJobRanks[i] is served by rank i");
                    inner[0] = MaskedExperts.compactConfig(config, mask);
                    return CallWords.moeOpen(config, mask);
                },
                () -> openMoe(inner[0], config, mask));
    }

    private MoeBuffer openMoe(MoeConfig config) {
        return openMoe(config, null, null);
    }

    /** Opens {@code config}; with a mask, {@code config} is the compact one and {@code original} the users' config. */
    private MoeBuffer openMoe(MoeConfig config, MoeConfig original, ExpertMask mask) {
        if (has(Capability.NATIVE_MOE)) {
            var nat = raw.nativeMoe(config);
            if (nat.isPresent()) return new CheckedMoe(nat.get(), size, this, original, mask);
        }
        for (MoeProvider p : ServiceLoader.load(MoeProvider.class)) {
            return new CheckedMoe(p.open(this, config), size, this, original, mask);
        }
        throw new UnsupportedCapabilityException(
                backend.name(),
                Capability.NATIVE_MOE,
                "MoE: the backend has no native MoE and dev.unicomm:collectives is not on the class path");
    }

    @Override
    public DeviceRuntime device() {
        ensureOpen();
        return raw.device()
                .orElseThrow(() -> new UnsupportedCapabilityException(
                        backend.name(),
                        Capability.DEVICE_MEMORY_CUDA,
                        "device(): this backend drives no accelerator; "
                                + WhoOffers.describe(Capability.DEVICE_MEMORY_CUDA)));
    }

    @Override
    public Endpoints endpoints() {
        ensureOpen();
        if (!has(Capability.P2P_ENDPOINTS))
            throw new UnsupportedCapabilityException(
                    backend.name(),
                    Capability.P2P_ENDPOINTS,
                    "endpoints(); " + WhoOffers.describe(Capability.P2P_ENDPOINTS));
        return raw.endpoints()
                .orElseThrow(() -> new UnsupportedCapabilityException(
                        backend.name(),
                        Capability.P2P_ENDPOINTS,
                        "endpoints(); " + WhoOffers.describe(Capability.P2P_ENDPOINTS)));
    }

    @Override
    public void abort(String reason) {
        Checks.notNull("abort reason", reason);
        try {
            store.abort(reason);
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "abort on rank {0} could not reach the store: {1}", rank, e.toString());
        }
    }

    @Override
    public HostTopology topology() {
        return topology;
    }

    @Override
    public Team nodeTeam() {
        ensureOpen();
        Team t = nodeTeam;
        if (t == null) {
            synchronized (this) {
                if (nodeTeam == null) nodeTeam = NodeTeams.split(world, topology);
                t = nodeTeam;
            }
        }
        return t;
    }

    @Override
    public int[] jobRanks() {
        return store instanceof ElasticStore es ? es.jobRanks() : Communicator.super.jobRanks();
    }

    /**
     * The survivors agree through the store (see {@link ElasticStore#agreeOnSurvivors}), this communicator
     * is released without waiting for anyone (the dead cannot answer), and the backend opens again over
     * the survivors with the new generation's store view. A death during the backend's open starts over.
     */
    @Override
    public Communicator shrink() {
        ensureOpen();
        if (!(store instanceof ElasticStore view) || provider == null || !has(Capability.ELASTIC))
            throw new UnsupportedCapabilityException(
                    backend.name(),
                    Capability.ELASTIC,
                    "shrink() (connect with unicomm.elastic=true / UNICOMM_ELASTIC=true on a backend that declares ELASTIC)");
        int self = rank;
        while (true) {
            ElasticStore next = view.agreeOnSurvivors(self);
            if (view == store) release();
            int jobRank = view.jobRanks()[self];
            int[] members = next.jobRanks();
            int newRank = java.util.Arrays.binarySearch(members, jobRank);
            CommConfig cfg = config.withRank(newRank, members.length);
            try {
                CheckedCommunicator c = new CheckedCommunicator(
                        provider.open(new BackendContext(cfg, next)), backend, cfg, next, provider, jobHosts);
                LOG.log(
                        Level.INFO,
                        "shrank communicator: job rank {0} is rank {1} of {2} survivors {3}",
                        jobRank,
                        newRank,
                        members.length,
                        java.util.Arrays.toString(members));
                return c;
            } catch (RankFailedException another) {
                view = next; // a survivor died while the backend opened: agree again without it
                self = newRank;
            }
        }
    }

    /** Releases this PE's side at once, after a rank failure: no collective step, buffers invalidated. */
    private void release() {
        released = true;
        open = false;
        for (CheckedBuffer b : live) b.invalidate();
        live.clear();
        try {
            raw.close();
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "releasing the failed communicator on rank {0}: {1}", rank, e.toString());
        }
        store.close(); // a no-op for the handed-over connection
    }

    /** Buffers still open (they are reported and released by {@link #close()}). */
    public List<SymmetricBuffer> liveBuffers() {
        return new ArrayList<>(live);
    }

    @Override
    public void close() {
        if (!open) return;
        CommCloseEvent event = new CommCloseEvent();
        event.begin();
        int leaked = live.size();
        // Collectives may own symmetric scratch memory: free it (collectively) before the leak report.
        if (collectives instanceof CheckedCollectives cc) cc.release();
        Team node = nodeTeam;
        if (node != null) {
            nodeTeam = null;
            node.close(); // collective, like this close
        }
        if (!live.isEmpty()) {
            LOG.log(
                    Level.WARNING,
                    "closing communicator (rank {0}) with {1} symmetric buffer(s) still open: {2}; releasing them",
                    rank,
                    live.size(),
                    live);
            for (CheckedBuffer b : live) b.invalidate();
            live.clear();
        }
        open = false;
        try {
            raw.close();
        } finally {
            store.close();
            event.end();
            if (event.shouldCommit()) {
                event.backend = backend.name();
                event.rank = rank;
                event.size = size;
                event.leakedBuffers = leaked;
                event.commit();
            }
            LOG.log(Level.DEBUG, "closed communicator: backend {0}, rank {1} of {2}", backend.name(), rank, size);
        }
    }

    @Override
    public String toString() {
        return "Communicator[backend=" + backend.name() + ", rank=" + rank + "/" + size + (open ? "" : ", closed")
                + "]";
    }
}
