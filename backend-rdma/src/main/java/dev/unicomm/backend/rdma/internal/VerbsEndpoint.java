package dev.unicomm.backend.rdma.internal;

import dev.unicomm.api.CommException;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.Endpoint;
import dev.unicomm.api.EndpointOptions;
import dev.unicomm.api.Memory;
import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.NativeCallException;
import dev.unicomm.spi.support.EndpointChecks;
import dev.unicomm.spi.support.LocalRegions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * A DLSlime-style endpoint over verbs: one device context, one completion queue drained by a
 * {@link CompletionPoller}, and {@code queuePairs} RC queue pairs. Batches are split into chunks
 * of at most {@link #SEND_DEPTH} work requests, round-robin over the queue pairs; only the last
 * request of a chunk is signaled. SEND/RECV and WRITE-with-immediate use queue pair 0, so they
 * pair with the peer's receives in order.
 */
public final class VerbsEndpoint implements Endpoint {
    static final int SEND_DEPTH = 256;
    static final int RECV_DEPTH = 256;
    private static final int RD_ATOMIC = 16;

    private record LocalRegion(String name, Memory memory, MemoryRegion mr) {}

    /** One posted chunk or receive, keyed by its work-request id. */
    private static final class Pending {
        final CompletableFuture<Object> future = new CompletableFuture<>();
        final Semaphore slots;
        final int count;
        final boolean receive;

        Pending(Semaphore slots, int count, boolean receive) {
            this.slots = slots;
            this.count = count;
            this.receive = receive;
        }
    }

    private final EndpointOptions options;
    private final DeviceContext dev;
    private final LocalAddress local;
    private final CompletionQueue cq;
    private final QueuePair[] qps;
    private final Semaphore[] sendSlots;
    private final Semaphore recvSlots = new Semaphore(RECV_DEPTH);
    private final LocalRegions<LocalRegion> regions = new LocalRegions<>(LocalRegion::memory);
    private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicLong nextId = new AtomicLong();
    private final AtomicInteger nextQp = new AtomicInteger();
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    private final CompletionPoller poller;
    private volatile Map<String, ConnectionInfo.Region> remoteRegions = Map.of();
    private volatile ConnectionInfo peer;
    private volatile CommException broken;
    private volatile boolean closed;

    private VerbsEndpoint(
            EndpointOptions options, DeviceContext dev, LocalAddress local, CompletionQueue cq, QueuePair[] qps) {
        this.options = options;
        this.dev = dev;
        this.local = local;
        this.cq = cq;
        this.qps = qps;
        this.sendSlots = new Semaphore[qps.length];
        for (int i = 0; i < qps.length; i++) sendSlots[i] = new Semaphore(SEND_DEPTH);
        this.poller = new CompletionPoller(
                "unicomm-rdma-cq-" + dev.name(), cq, options.busyPoll(), pending::size, new Handler());
    }

    /** Opens an endpoint; the device is {@code options.device()} or the first with a matching ACTIVE port. */
    public static VerbsEndpoint open(EndpointOptions options) {
        if (options == null) throw new IllegalArgumentException("endpoint options must not be null");
        Verbs.require();
        String name = options.device() != null ? options.device() : pickDevice(options);
        if (!Devices.names().contains(name))
            throw new IllegalArgumentException("no RDMA device named '" + name + "'; devices here: " + Devices.names());
        DeviceContext dev = DeviceContext.open(name);
        CompletionQueue cq = null;
        List<QueuePair> made = new ArrayList<>();
        try {
            LocalAddress addr = LocalAddress.resolve(dev, options.port(), options.gidIndex(), options.linkType());
            int entries = Math.min(dev.attr().maxCqe(), options.queuePairs() * SEND_DEPTH + RECV_DEPTH);
            cq = new CompletionQueue(dev, entries, !options.busyPoll());
            for (int i = 0; i < options.queuePairs(); i++)
                made.add(new QueuePair(dev, cq, SEND_DEPTH, i == 0 ? RECV_DEPTH : 1));
            return new VerbsEndpoint(options, dev, addr, cq, made.toArray(QueuePair[]::new));
        } catch (RuntimeException e) {
            made.forEach(QueuePair::close);
            if (cq != null) cq.close();
            dev.close();
            throw e;
        }
    }

    private static String pickDevice(EndpointOptions o) {
        boolean roce = o.linkType() == EndpointOptions.LinkType.ROCE;
        List<String> seen = new ArrayList<>();
        for (var nic : Devices.list()) {
            for (var p : nic.ports()) {
                if (p.number() == o.port() && p.active() && p.linkLayer().equals(roce ? "Ethernet" : "InfiniBand"))
                    return nic.name();
                seen.add(nic.name() + ":" + p.number() + " " + p.state() + " " + p.linkLayer());
            }
        }
        throw new IllegalStateException(
                "no RDMA device has an ACTIVE " + o.linkType() + " port " + o.port() + "; ports here: " + seen);
    }

    // ---------------------------------------------------------------- connection

    @Override
    public byte[] localInfo() {
        ensureOpen();
        Map<String, ConnectionInfo.Region> mine = new LinkedHashMap<>();
        for (LocalRegion r : regions.all())
            mine.put(r.name(), new ConnectionInfo.Region(r.mr().address(), r.mr().length(), r.mr().rkey()));
        List<ConnectionInfo.Qp> q = new ArrayList<>();
        for (QueuePair qp : qps) q.add(new ConnectionInfo.Qp(qp.qpn(), qp.psn()));
        return new ConnectionInfo(dev.name(), local.ethernet(), local.lid(), local.gid(), local.mtu(), q, mine)
                .encode();
    }

    @Override
    public synchronized void connect(byte[] remoteInfo) {
        ensureOpen();
        if (peer != null)
            throw new IllegalStateException("endpoint on " + dev.name() + " is already connected (to " + peer.device()
                    + "); open a new endpoint for another peer");
        ConnectionInfo remote = ConnectionInfo.decode(remoteInfo);
        if (remote.qps().size() != qps.length)
            throw new IllegalArgumentException("the peer has " + remote.qps().size() + " queue pairs, this endpoint "
                    + qps.length + ": open both with the same EndpointOptions.queuePairs");
        if (remote.ethernet() != local.ethernet())
            throw new IllegalArgumentException(
                    "link layers differ: this endpoint is " + (local.ethernet() ? "RoCE" : "InfiniBand") + ", the peer "
                            + (remote.ethernet() ? "RoCE" : "InfiniBand"));
        int mtu = Math.min(local.mtu(), remote.mtu()); // MTU negotiation: the smaller active MTU
        int rd = Math.max(
                1,
                Math.min(
                        RD_ATOMIC, Math.min(dev.attr().maxQpRdAtom(), dev.attr().maxQpInitRdAtom())));
        lifecycle.readLock().lock();
        try {
            ensureOpen();
            for (int i = 0; i < qps.length; i++)
                qps[i].connect(local, mtu, remote.qps().get(i), remote, rd);
        } finally {
            lifecycle.readLock().unlock();
        }
        remoteRegions = remote.regions();
        peer = remote;
    }

    @Override
    public boolean isConnected() {
        return peer != null && !closed && broken == null;
    }

    @Override
    public void updateRemote(byte[] remoteInfo) {
        ensureOpen();
        ConnectionInfo remote = ConnectionInfo.decode(remoteInfo);
        ConnectionInfo p = peer;
        if (p == null) throw new IllegalStateException("updateRemote before connect: call connect(remoteInfo) first");
        if (!p.qps().equals(remote.qps()))
            throw new IllegalArgumentException(
                    "updateRemote: the info comes from another endpoint than the connected peer");
        remoteRegions = remote.regions();
    }

    // ---------------------------------------------------------------- regions

    @Override
    public void registerRegion(String name, Memory memory) {
        ensureOpen();
        EndpointChecks.checkRegionName(name, memory);
        if (!accepts(memory.kind()))
            throw new IllegalArgumentException(
                    "region '" + name + "': " + memory.kind() + " memory cannot be registered on " + dev.name()
                            + (memory.kind().type() == MemoryKind.Type.CUDA
                                    ? " (load the nvidia_peermem kernel module for GPUDirect RDMA)"
                                    : ""));
        EndpointChecks.checkRegistrable(name, memory);
        regions.add(name, () -> {
            lifecycle.readLock().lock();
            try {
                ensureOpen();
                return new LocalRegion(
                        name,
                        memory,
                        new MemoryRegion(dev, memory.address(), memory.byteSize(), MemoryRegion.ACCESS_ALL));
            } finally {
                lifecycle.readLock().unlock();
            }
        });
    }

    @Override
    public void unregisterRegion(String name) {
        ensureOpen();
        regions.remove(name).mr().close();
    }

    @Override
    public List<String> regions() {
        return regions.names();
    }

    @Override
    public boolean accepts(MemoryKind kind) {
        if (kind == null) return false;
        return switch (kind.type()) {
            case HOST -> true;
            case CUDA ->
                Files.exists(Path.of("/sys/module/nvidia_peermem"))
                        || Files.exists(Path.of("/sys/kernel/mm/memory_peers/nv_mem"));
            case ASCEND -> false;
        };
    }

    // ---------------------------------------------------------------- transfers

    @Override
    public CompletableFuture<Void> readBatch(String name, long[] remoteOffsets, long[] localOffsets, long length) {
        return batch("readBatch", QueuePair.OP_READ, name, remoteOffsets, localOffsets, length);
    }

    @Override
    public CompletableFuture<Void> writeBatch(String name, long[] remoteOffsets, long[] localOffsets, long length) {
        return batch("writeBatch", QueuePair.OP_WRITE, name, remoteOffsets, localOffsets, length);
    }

    @Override
    public CompletableFuture<Void> writeWithImm(
            String name, long remoteOffset, long localOffset, long length, int imm) {
        LocalRegion l = localRegion("writeWithImm", name);
        ConnectionInfo.Region r = remoteRegion("writeWithImm", name);
        EndpointChecks.checkLength("writeWithImm", length);
        EndpointChecks.checkRange("writeWithImm local", name, localOffset, length, l.mr().length());
        EndpointChecks.checkRange("writeWithImm remote", name, remoteOffset, length, r.length());
        return post(
                        0,
                        1,
                        false,
                        (qp, id) -> qp.postRdma(
                                QueuePair.OP_WRITE_IMM,
                                id,
                                1,
                                new long[] {l.mr().address() + localOffset},
                                l.mr().lkey(),
                                new long[] {r.address() + remoteOffset},
                                r.rkey(),
                                (int) length,
                                imm))
                .thenApply(x -> null);
    }

    @Override
    public CompletableFuture<Void> send(String name, long offset, long length) {
        LocalRegion l = localRegion("send", name);
        EndpointChecks.checkLength("send", length);
        EndpointChecks.checkRange("send", name, offset, length, l.mr().length());
        return post(0, 1, false, (qp, id) -> qp.postSend(id, l.mr().address() + offset, (int) length, l.mr().lkey()))
                .thenApply(x -> null);
    }

    @Override
    public CompletableFuture<Received> recv(String name, long offset, long length) {
        LocalRegion l = localRegion("recv", name);
        EndpointChecks.checkLength("recv", length);
        EndpointChecks.checkRange("recv", name, offset, length, l.mr().length());
        return post(0, 1, true, (qp, id) -> qp.postRecv(id, l.mr().address() + offset, (int) length, l.mr().lkey()))
                .thenApply(x -> (Received) x);
    }

    private CompletableFuture<Void> batch(
            String op, int opcode, String name, long[] remoteOffsets, long[] localOffsets, long length) {
        LocalRegion l = localRegion(op, name);
        ConnectionInfo.Region r = remoteRegion(op, name);
        if (remoteOffsets == null || localOffsets == null)
            throw new IllegalArgumentException(op + ": offset arrays must not be null");
        if (remoteOffsets.length != localOffsets.length)
            throw new IllegalArgumentException(op + ": " + remoteOffsets.length + " remote offsets but "
                    + localOffsets.length + " local offsets; they must pair up");
        EndpointChecks.checkLength(op, length);
        int n = remoteOffsets.length;
        long[] la = new long[n];
        long[] ra = new long[n];
        for (int i = 0; i < n; i++) {
            EndpointChecks.checkRange(op + " local[" + i + "]", name, localOffsets[i], length, l.mr().length());
            EndpointChecks.checkRange(op + " remote[" + i + "]", name, remoteOffsets[i], length, r.length());
            la[i] = l.mr().address() + localOffsets[i];
            ra[i] = r.address() + remoteOffsets[i];
        }
        if (n == 0) return CompletableFuture.completedFuture(null);
        List<CompletableFuture<Object>> chunks = new ArrayList<>();
        for (int from = 0; from < n; from += SEND_DEPTH) {
            int count = Math.min(SEND_DEPTH, n - from);
            long[] lc = java.util.Arrays.copyOfRange(la, from, from + count);
            long[] rc = java.util.Arrays.copyOfRange(ra, from, from + count);
            int q = Math.floorMod(nextQp.getAndIncrement(), qps.length);
            chunks.add(post(
                    q,
                    count,
                    false,
                    (qp, id) -> qp.postRdma(opcode, id, count, lc, l.mr().lkey(), rc, r.rkey(), (int) length, 0)));
            if (chunks.get(chunks.size() - 1).isCompletedExceptionally()) break;
        }
        if (chunks.size() == 1) return chunks.get(0).thenApply(x -> null);
        return CompletableFuture.allOf(chunks.toArray(CompletableFuture[]::new));
    }

    private interface Poster {
        int post(QueuePair qp, long wrId);
    }

    /** Takes queue slots, records the pending completion, posts; failures come back as a failed future. */
    private CompletableFuture<Object> post(int q, int count, boolean receive, Poster poster) {
        Semaphore slots = receive ? recvSlots : sendSlots[q];
        Pending p = new Pending(slots, count, receive);
        try {
            if (!slots.tryAcquire(count, options.timeout().toMillis(), TimeUnit.MILLISECONDS))
                throw new CommTimeoutException(
                        "waiting for " + (receive ? "receive" : "send") + " queue space on " + dev.name(),
                        options.timeout());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.future.completeExceptionally(new CommException("interrupted while waiting for queue space"));
            return p.future;
        } catch (CommTimeoutException e) {
            p.future.completeExceptionally(e);
            return p.future;
        }
        long id = nextId.incrementAndGet();
        pending.put(id, p);
        int rc;
        lifecycle.readLock().lock();
        try {
            CommException b = broken;
            if (closed) rc = Integer.MIN_VALUE;
            else if (b != null) rc = Integer.MIN_VALUE + 1;
            else rc = poster.post(qps[q], id);
        } finally {
            lifecycle.readLock().unlock();
        }
        if (rc < 0) {
            if (pending.remove(id) != null) slots.release(count);
            p.future.completeExceptionally(
                    rc == Integer.MIN_VALUE
                            ? new IllegalStateException("endpoint on " + dev.name() + " is closed")
                            : rc == Integer.MIN_VALUE + 1
                                    ? broken
                                    : new NativeCallException("ibv_post_send/recv", rc, Verbs.lastError()));
        } else {
            poller.wake();
        }
        return p.future;
    }

    @Override
    public <T> T await(CompletableFuture<T> future) {
        return EndpointChecks.await(future, options.timeout(), "RDMA transfer on " + dev.name(), "an RDMA transfer");
    }

    // ---------------------------------------------------------------- checks

    private void ensureOpen() {
        if (closed) throw new IllegalStateException("endpoint on " + dev.name() + " is closed");
    }

    private LocalRegion localRegion(String op, String name) {
        ensureOpen();
        EndpointChecks.checkConnected(op, broken, peer != null);
        return regions.get(op, name);
    }

    private ConnectionInfo.Region remoteRegion(String op, String name) {
        return EndpointChecks.remoteRegion(op, name, remoteRegions);
    }

    // ---------------------------------------------------------------- completions

    private final class Handler implements CompletionPoller.Handler {
        @Override
        public void completions(long[] wc, int count) {
            for (int i = 0; i < count; i++) {
                long id = WorkCompletions.wrId(wc, i);
                int status = WorkCompletions.status(wc, i);
                Pending p = pending.remove(id);
                if (status != WorkCompletions.SUCCESS) {
                    fail(p, status, WorkCompletions.vendorErr(wc, i));
                    continue;
                }
                if (p == null) continue;
                p.slots.release(p.count);
                if (p.receive) {
                    OptionalInt imm = WorkCompletions.hasImm(wc, i)
                            ? OptionalInt.of(WorkCompletions.imm(wc, i))
                            : OptionalInt.empty();
                    p.future.complete(new Received(WorkCompletions.byteLen(wc, i), imm));
                } else {
                    p.future.complete(null);
                }
            }
        }

        private void fail(Pending p, int status, int vendorErr) {
            CommException e = new CommException("RDMA work request on " + dev.name() + " failed with "
                    + WorkCompletions.statusName(status) + " (vendor error 0x" + Integer.toHexString(vendorErr) + "): "
                    + WorkCompletions.hint(status));
            if (status != WorkCompletions.WR_FLUSH_ERR || broken == null) {
                if (broken == null) broken = e;
            }
            if (p != null) {
                p.slots.release(p.count);
                p.future.completeExceptionally(broken);
            }
            failAll(broken);
        }

        @Override
        public void failed(RuntimeException e) {
            CommException c =
                    new CommException("polling completions on " + dev.name() + " failed: " + e.getMessage(), e);
            if (broken == null) broken = c;
            failAll(c);
        }
    }

    /** Fails every outstanding transfer (the connection broke or the endpoint closes). */
    private void failAll(RuntimeException cause) {
        for (Long id : new ArrayList<>(pending.keySet())) {
            Pending p = pending.remove(id);
            if (p != null) {
                p.slots.release(p.count);
                p.future.completeExceptionally(cause);
            }
        }
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) return;
            closed = true;
        }
        poller.stop();
        lifecycle.writeLock().lock();
        try {
            failAll(new IllegalStateException(
                    "endpoint on " + dev.name() + " was closed with the transfer outstanding"));
            for (QueuePair qp : qps) qp.close();
            for (LocalRegion r : regions.all()) r.mr().close();
            regions.clear();
            cq.close();
            dev.close();
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    @Override
    public String toString() {
        return "RdmaEndpoint[" + dev.name() + ":" + local.port() + ", gid " + local.gidIndex() + " "
                + local.gid().display() + ", " + qps.length + " QP, " + (peer == null ? "not connected" : "connected")
                + (closed ? ", closed" : "") + "]";
    }
}
