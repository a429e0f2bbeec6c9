package dev.unicomm.backend.rdma.internal;

import dev.unicomm.api.CommConfig;
import dev.unicomm.api.EndpointOptions.LinkType;
import dev.unicomm.api.Endpoints;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.Store;
import dev.unicomm.spi.support.BackendCommunicatorBase;
import dev.unicomm.spi.support.StoreHeap;
import dev.unicomm.spi.support.StoreTeam;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One PE of an {@code rdma} job: a device context, one completion queue, one RC queue pair to every
 * PE (itself included, looped back), the heap registered as one region and a staging ring. At open,
 * every PE publishes its GID, queue-pair numbers and heap key under {@code rdma/<rank>} in the
 * rendezvous store, reads everyone else's, connects, and waits in a store barrier.
 */
public final class RdmaCommunicator extends BackendCommunicatorBase<StoreHeap, RdmaRma, StoreTeam> {
    private static final long STAGING_BYTES = 4L << 20;
    private static final int RD_ATOMIC = 16;

    private final Store store;
    private final String prefix = "rdma/";
    private final DeviceContext dev;
    private final CompletionQueue cq;
    private final QueuePair[] qps;
    private final Arena arena;
    private final MemoryRegion heapMr;
    private final MemoryRegion stagingMr;
    private final Endpoints endpoints;
    private long barriers;
    private boolean closed;

    private RdmaCommunicator(
            BackendContext ctx,
            DeviceContext dev,
            LocalAddress local,
            int ackTimeout,
            Endpoints endpoints,
            List<AutoCloseable> undo) {
        super(ctx.rank(), ctx.size());
        int rank = ctx.rank(), size = ctx.size();
        CommConfig config = ctx.config();
        this.store = ctx.store();
        this.dev = dev;
        this.endpoints = endpoints;
        this.cq = new CompletionQueue(dev, Math.min(dev.attr().maxCqe(), size * RdmaRma.SEND_DEPTH + 64), false);
        undo.add(cq);
        this.qps = new QueuePair[size];
        for (int pe = 0; pe < size; pe++) {
            qps[pe] = new QueuePair(dev, cq, RdmaRma.SEND_DEPTH, 1);
            undo.add(qps[pe]);
        }
        this.arena = Arena.ofShared();
        undo.add(arena);
        MemorySegment heapSeg = arena.allocate(config.heapSize(), 4096);
        MemorySegment staging = arena.allocate(STAGING_BYTES + 8, 4096);
        this.heapMr = new MemoryRegion(dev, heapSeg.address(), heapSeg.byteSize(), MemoryRegion.ACCESS_ALL);
        undo.add(heapMr);
        this.stagingMr = new MemoryRegion(dev, staging.address(), staging.byteSize(), MemoryRegion.ACCESS_ALL);
        undo.add(stagingMr);

        // Exchange: my QP towards PE j is entry j of my list; PE j connects its QP towards me to it.
        List<ConnectionInfo.Qp> mine = new ArrayList<>();
        for (QueuePair qp : qps) mine.add(new ConnectionInfo.Qp(qp.qpn(), qp.psn()));
        ConnectionInfo me = new ConnectionInfo(
                dev.name(),
                local.ethernet(),
                local.lid(),
                local.gid(),
                local.mtu(),
                mine,
                Map.of("heap", new ConnectionInfo.Region(heapMr.address(), heapMr.length(), heapMr.rkey())));
        store.set(prefix + rank, me.encode());
        long[] remoteHeap = new long[size];
        int[] remoteRkey = new int[size];
        int rd = Math.max(
                1,
                Math.min(
                        RD_ATOMIC, Math.min(dev.attr().maxQpRdAtom(), dev.attr().maxQpInitRdAtom())));
        for (int pe = 0; pe < size; pe++) {
            ConnectionInfo peer = ConnectionInfo.decode(store.get(prefix + pe));
            if (peer.qps().size() != size)
                throw new IllegalStateException(
                        "PE " + pe + " published " + peer.qps().size() + " queue pairs for a job of " + size);
            if (peer.ethernet() != local.ethernet())
                throw new IllegalStateException("PE " + pe + " uses " + (peer.ethernet() ? "RoCE" : "InfiniBand")
                        + ", PE " + rank + " the other");
            ConnectionInfo.Region h = peer.regions().get("heap");
            if (h == null || h.length() != heapMr.length())
                throw new IllegalStateException(
                        "PE " + pe + " has a heap of " + (h == null ? "?" : h.length()) + " bytes, PE " + rank + " of "
                                + heapMr.length() + ": every PE must use the same unicomm.heap_size");
            remoteHeap[pe] = h.address();
            remoteRkey[pe] = h.rkey();
            qps[pe].connect(local, Math.min(local.mtu(), peer.mtu()), peer.qps().get(rank), peer, rd, ackTimeout);
        }
        store.barrier(prefix + "connected");
        StoreHeap heap = new StoreHeap(heapSeg, store, rank, size, prefix, () -> {});
        RdmaRma rma = new RdmaRma(
                rank,
                dev.name(),
                qps,
                remoteHeap,
                remoteRkey,
                heapMr,
                heapSeg,
                stagingMr,
                staging,
                cq,
                config.timeout());
        int[] all = new int[size];
        for (int i = 0; i < size; i++) all[i] = i;
        parts(heap, rma, new StoreTeam(new StoreTeam.Scope("RdmaTeam", store, prefix, rma::quiet, rank), "world", all));
    }

    /**
     * Opens this PE's side (collective). Settings: {@code rdma.device}, {@code rdma.port}, {@code rdma.gid_index},
     * each one value or one per local rank ({@link PerLocalRank}).
     */
    public static RdmaCommunicator open(BackendContext ctx, Endpoints endpoints) {
        CommConfig c = ctx.config();
        int localRank = c.localRank();
        String device = PerLocalRank.pick("rdma.device", c.property("rdma.device", null), localRank);
        int port = PerLocalRank.pickInt("rdma.port", c.property("rdma.port", null), localRank, 1);
        int gidIndex = PerLocalRank.pickInt("rdma.gid_index", c.property("rdma.gid_index", null), localRank, -1);
        if (gidIndex < -1)
            throw new IllegalArgumentException(
                    "unicomm.rdma.gid_index must be >= 0, or -1 for a RoCE v2 GID; got " + gidIndex);
        // Like NCCL_IB_TIMEOUT: 4.096 µs × 2^n per try before a retransmit; 7 tries in all before IBV_WC_RETRY_EXC_ERR.
        int ackTimeout = PerLocalRank.pickInt(
                "rdma.ack_timeout", c.property("rdma.ack_timeout", null), localRank, QueuePair.ACK_TIMEOUT);
        if (ackTimeout < 1 || ackTimeout > 31)
            throw new IllegalArgumentException(
                    "unicomm.rdma.ack_timeout is an exponent 1..31 (4.096 µs × 2^n per try; default "
                            + QueuePair.ACK_TIMEOUT + "), got " + ackTimeout);
        Verbs.require(); // the settings are checked first: a typo needs no verbs library to be named
        if (device == null) device = firstActive(port);
        else if (!Devices.names().contains(device))
            throw new IllegalArgumentException("unicomm.rdma.device names '" + device + "' (local rank " + localRank
                    + "), but this host's RDMA devices are " + Devices.names());
        DeviceContext dev = DeviceContext.open(device);
        List<AutoCloseable> undo = new ArrayList<>();
        try {
            boolean ethernet = dev.port(port).ethernet();
            LocalAddress local =
                    LocalAddress.resolve(dev, port, gidIndex, ethernet ? LinkType.ROCE : LinkType.INFINIBAND);
            return new RdmaCommunicator(ctx, dev, local, ackTimeout, endpoints, undo);
        } catch (RuntimeException e) {
            for (int i = undo.size() - 1; i >= 0; i--) {
                try {
                    undo.get(i).close();
                } catch (Exception suppressed) {
                    e.addSuppressed(suppressed);
                }
            }
            dev.close();
            throw e;
        }
    }

    private static String firstActive(int port) {
        for (var nic : Devices.list())
            for (var p : nic.ports()) if (p.number() == port && p.active()) return nic.name();
        throw new IllegalStateException(
                "no RDMA device has an ACTIVE port " + port + " (set unicomm.rdma.device / unicomm.rdma.port)");
    }

    @Override
    public Optional<Endpoints> endpoints() {
        return Optional.of(endpoints);
    }

    @Override
    public void barrier() {
        rma().quiet();
        long n;
        synchronized (this) {
            n = barriers++;
        }
        store.barrier(prefix + "barrier/" + n);
    }

    @Override
    public synchronized void close() {
        if (closed) return;
        closed = true;
        RuntimeException first = null;
        try {
            rma().quiet();
        } catch (RuntimeException e) {
            first = e;
        }
        try {
            // No PE tears down its queue pairs while another may still target its heap.
            store.barrier(prefix + "close");
        } catch (RuntimeException e) {
            if (first == null) first = e;
        }
        for (QueuePair qp : qps) qp.close();
        heapMr.close();
        stagingMr.close();
        cq.close();
        arena.close();
        dev.close();
        if (first != null) throw first;
    }

    @Override
    public String toString() {
        return "RdmaCommunicator[" + dev.name() + ", PE " + rank() + "/" + size() + "]";
    }
}
