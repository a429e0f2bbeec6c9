package dev.unicomm.backend.ucx.internal;

import dev.unicomm.api.CommConfig;
import dev.unicomm.api.Endpoints;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.Store;
import dev.unicomm.spi.support.BackendCommunicatorBase;
import dev.unicomm.spi.support.StoreHeap;
import dev.unicomm.spi.support.StoreTeam;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Optional;

/**
 * One PE of a {@code ucx} job. At open each PE creates a UCP context and worker (with its progress
 * thread), maps its heap with {@code ucp_mem_map}, publishes {@link PeerInfo} (worker address, heap
 * base and packed rkey) under {@code unicomm.ucx/<generation>/peer/<rank>} in the rendezvous store,
 * reads every PE's, creates one endpoint per PE and unpacks its rkey, and meets the others in a
 * store barrier. Barriers (the communicator's and the world team's) complete this PE's RMA (a worker flush), then meet
 * over UCX ({@link UcxBarrier}); sub-teams and close meet in the store.
 */
public final class UcxCommunicator extends BackendCommunicatorBase<StoreHeap, UcxRma, StoreTeam> {
    private final Store store;
    private final String prefix;
    private final Duration timeout;
    private final UcxWorker w;
    private final Arena heapArena;
    private final MemorySegment memh;
    private final Peers peers;
    private final Runnable health;
    private final Endpoints endpoints;
    private final UcxBarrier meeting;
    private boolean closed;

    private UcxCommunicator(
            BackendContext ctx,
            String prefix,
            UcxWorker w,
            Arena heapArena,
            MemorySegment heapSeg,
            MemorySegment memh,
            Peers peers,
            Endpoints endpoints) {
        super(ctx.rank(), ctx.size());
        int rank = ctx.rank(), size = ctx.size();
        this.endpoints = endpoints;
        this.store = ctx.store();
        this.prefix = prefix;
        this.timeout = ctx.config().timeout();
        this.w = w;
        this.heapArena = heapArena;
        this.memh = memh;
        this.peers = peers;
        this.health = this::checkHealthy;
        // A peer that does not answer within the timeout (stopped, its link down) fails the whole job, naming it: the
        // other
        // ranks' waits end at once instead of each running into its own timeout, and every close takes its no-wait
        // path.
        w.onPeerTimeout((pe, e) ->
                store.abort("rank " + pe + " did not answer (reported by rank " + rank + "): " + e.getMessage()));
        UcxRma rma = new UcxRma(w, peers, timeout, health);
        this.meeting = new UcxBarrier(w, peers, rank, size, timeout, health);
        StoreHeap heap = new StoreHeap(
                heapSeg, store, rank, size, prefix, rma::quiet); // free completes this PE's RMA first (semantics §3.3)
        int[] all = new int[size];
        for (int i = 0; i < size; i++) all[i] = i;
        parts(
                heap,
                rma,
                new StoreTeam(
                        new StoreTeam.Scope("UcxTeam", store, prefix, rma::quiet, rank), "world", all, this::barrier));
    }

    /**
     * Opens this PE's side (collective). Settings: {@code ucx.progress_spin} (empty progress rounds before the
     * progress thread sleeps, default 200), {@code ucx.progress_poll_ms} (longest sleep, default 1), {@code ucx.print_info}
     * ({@code true}: print every endpoint's transports to stderr, {@code ucp_ep_print_info}), {@code ucx.progress_while_waiting}
     * ({@code caller}, the default: a thread waiting for its own operation progresses the worker alone, the progress thread
     * steps aside; {@code both}: the progress thread keeps progressing too, as before 2026-12-06).
     */
    public static UcxCommunicator open(BackendContext ctx, String library, Endpoints endpoints) {
        CommConfig c = ctx.config();
        Store store = ctx.store();
        int rank = ctx.rank(), size = ctx.size();
        int spin = Integer.parseInt(c.property("ucx.progress_spin", "200"));
        int pollMs = Integer.parseInt(c.property("ucx.progress_poll_ms", "1"));
        if (spin < 0 || pollMs < 0 || pollMs > 1000)
            throw new IllegalArgumentException(
                    "unicomm.ucx.progress_spin must be >= 0 and unicomm.ucx.progress_poll_ms in 0..1000 (got " + spin
                            + ", " + pollMs + ")");
        String whileWaiting = c.property("ucx.progress_while_waiting", "caller");
        if (!whileWaiting.equals("caller") && !whileWaiting.equals("both"))
            throw new IllegalArgumentException(
                    "unicomm.ucx.progress_while_waiting must be 'caller' or 'both', got '" + whileWaiting + "'");
        long generation = (store.add("unicomm.ucx/opens", 1) - 1) / size;
        String prefix = "unicomm.ucx/" + generation + "/";

        UcxWorker w =
                UcxWorker.open(library, "unicomm-ucx-progress-pe" + rank, spin, pollMs, whileWaiting.equals("caller"));
        Arena heapArena = Arena.ofShared();
        MemorySegment memh = MemorySegment.NULL;
        Peers peers = null;
        try {
            MemorySegment heapSeg = heapArena.allocate(c.heapSize(), 4096);
            memh = map(w, heapSeg);
            PeerInfo me = new PeerInfo(w.address(), heapSeg.address(), heapSeg.byteSize(), packRkey(w, memh));
            store.set(prefix + "peer/" + rank, me.encode());
            PeerInfo[] all = new PeerInfo[size];
            for (int pe = 0; pe < size; pe++) {
                all[pe] = PeerInfo.decode(store.get(prefix + "peer/" + pe), pe);
                if (all[pe].heapBytes() != heapSeg.byteSize())
                    throw new IllegalStateException("PE " + pe + " has a heap of " + all[pe].heapBytes() + " bytes, PE "
                            + rank + " of " + heapSeg.byteSize() + ": every PE must use the same unicomm.heap_size");
            }
            peers = Peers.connect(w, all);
            store.barrier(prefix + "connected");
            if (Boolean.parseBoolean(c.property("ucx.print_info", "false"))) peers.printInfo(rank);
            return new UcxCommunicator(ctx, prefix, w, heapArena, heapSeg, memh, peers, endpoints);
        } catch (RuntimeException | Error e) {
            if (peers != null) peers.close(true, Duration.ofSeconds(1), () -> {});
            if (!memh.equals(MemorySegment.NULL)) w.ucp.memUnmap(w.context, memh);
            w.close();
            if (peers != null) peers.forget();
            heapArena.close();
            throw e;
        }
    }

    private static MemorySegment map(UcxWorker w, MemorySegment region) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment params = a.allocate(UcpAbi.MEM_MAP_PARAMS_SIZE, 8);
            params.set(
                    ValueLayout.JAVA_LONG,
                    UcpAbi.MEM_MAP_FIELD_MASK,
                    UcpAbi.MEM_MAP_PARAM_FIELD_ADDRESS | UcpAbi.MEM_MAP_PARAM_FIELD_LENGTH);
            params.set(ValueLayout.ADDRESS, UcpAbi.MEM_MAP_ADDRESS, region);
            params.set(ValueLayout.JAVA_LONG, UcpAbi.MEM_MAP_LENGTH, region.byteSize());
            MemorySegment out = a.allocate(ValueLayout.ADDRESS);
            Ucx.check(
                    w.ucp,
                    w.ucp.memMap(w.context, params, out),
                    "ucp_mem_map (symmetric heap of " + region.byteSize() + " bytes)");
            return out.get(ValueLayout.ADDRESS, 0);
        }
    }

    private static byte[] packRkey(UcxWorker w, MemorySegment memh) {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment buf = a.allocate(ValueLayout.ADDRESS), len = a.allocate(ValueLayout.JAVA_LONG);
            Ucx.check(w.ucp, w.ucp.rkeyPack(w.context, memh, buf, len), "ucp_rkey_pack");
            MemorySegment packed = buf.get(ValueLayout.ADDRESS, 0);
            byte[] bytes = packed.reinterpret(len.get(ValueLayout.JAVA_LONG, 0)).toArray(ValueLayout.JAVA_BYTE);
            w.ucp.rkeyBufferRelease(packed);
            return bytes;
        }
    }

    /** Throws {@code CommAbortedException} when the job failed (store), or when the progress thread died. */
    private void checkHealthy() {
        store.checkHealthy();
        Throwable t = w.progressFailure();
        if (t != null) throw new IllegalStateException("the UCX progress thread of PE " + rank() + " failed: " + t, t);
    }

    /** The same endpoints as {@code Unicomm.endpoints("ucx")}: each has its own worker, independent of this communicator. */
    @Override
    public Optional<Endpoints> endpoints() {
        return Optional.of(endpoints);
    }

    /** Completes this PE's RMA, then meets the others over UCX (the world team's barrier is this one). */
    @Override
    public void barrier() {
        rma().quiet();
        meeting.await();
    }

    /**
     * Collective. Completes this PE's RMA, meets the others (so nobody still targets this heap), closes the
     * endpoints (flushing them while every peer still progresses), meets again, then unmaps the heap and
     * destroys the worker and context. After a failure in the job it releases this PE's side without waiting.
     */
    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        RuntimeException first = null;
        boolean healthy = true;
        try {
            rma().quiet();
            store.barrier(prefix + "close");
        } catch (RuntimeException e) {
            first = e;
            healthy = false;
        }
        try {
            peers.close(!healthy, healthy ? timeout : Duration.ofSeconds(2), healthy ? health : () -> {});
            if (healthy) store.barrier(prefix + "closed");
        } catch (RuntimeException e) {
            if (first == null) first = e;
        }
        w.ucp.memUnmap(w.context, memh);
        w.close();
        peers.forget();
        rma().release(); // operand and reply words: only once no request can use them
        meeting.release(); // the barrier's words, likewise
        heapArena.close();
        if (first != null) throw first;
    }

    @Override
    public String toString() {
        return "UcxCommunicator[PE " + rank() + "/" + size() + "]";
    }
}
