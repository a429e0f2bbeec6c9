package dev.unicomm.backend.ucx.internal;

import dev.unicomm.api.CommException;
import dev.unicomm.api.Endpoint;
import dev.unicomm.api.EndpointOptions;
import dev.unicomm.api.Memory;
import dev.unicomm.api.MemoryKind;
import dev.unicomm.spi.support.EndpointChecks;
import dev.unicomm.spi.support.LocalRegions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.Function;

/**
 * A DLSlime-style endpoint over UCP: its own context and worker (features TAG and RMA) with the
 * backend's progress thread ({@link UcxWorker}), one UCP endpoint to the peer, regions mapped with
 * {@code ucp_mem_map} whose packed rkeys travel in {@link #localInfo()}.
 *
 * <ul>
 *   <li>READ/WRITE batches: one {@code ucp_get_nbx}/{@code ucp_put_nbx} per block on the peer's rkey,
 *       then {@code ucp_ep_flush_nbx}; the future completes with the flush, i.e. when every block is
 *       done at the peer (remote completion, as an RDMA WRITE's acknowledgement).</li>
 *   <li>SEND/RECV: {@code ucp_tag_send_nbx} to the peer, {@code ucp_tag_recv_nbx} on the worker (any
 *       tag): messages meet receives in the order both were posted.</li>
 *   <li>WRITE with immediate: the put, an endpoint flush, and only when the flush completed a
 *       zero-byte tagged message whose tag carries the immediate and the length; it consumes the
 *       peer's next receive. So the receive completes only after the written bytes are in the peer's
 *       memory. SENDs and immediates leave in call order (a SEND called after a WRITE-with-immediate
 *       waits for that flush).</li>
 * </ul>
 * Completion callbacks ({@link Completions}), cancels and the endpoint close all run on the progress
 * thread, so no request is freed while another thread uses it.
 */
public final class UcxEndpoint implements Endpoint {
    private static final long IMM_FLAG = 1L << 63;
    private static final AtomicInteger SERIAL = new AtomicInteger();
    private static final SecureRandom IDS = new SecureRandom();
    private static final long CLOSE_WAIT_MILLIS = 2_000;

    private record LocalRegion(String name, Memory memory, MemorySegment memh, byte[] rkey) {}

    private record RemoteRegion(long address, long length, MemorySegment rkey) {}

    private final EndpointOptions options;
    private final UcxWorker w;
    private final Ucp ucp;
    private final String label;
    private final long id = IDS.nextLong();
    private final Arena arena = Arena.ofShared();
    private final MemorySegment plain; // ucp_request_param_t without fields: contiguous bytes, no callback
    private final LocalRegions<LocalRegion> regions = new LocalRegions<>(LocalRegion::memory);
    private final ReentrantReadWriteLock lifecycle = new ReentrantReadWriteLock();
    private final Object messageOrder = new Object();
    private CompletableFuture<Void> lastMessageIssued = CompletableFuture.completedFuture(null);
    private volatile Map<String, RemoteRegion> remote = Map.of();
    private volatile MemorySegment ep;
    private volatile long peerId;
    private volatile long errorsId;
    private volatile CommException broken;
    private volatile boolean closed;

    private UcxEndpoint(EndpointOptions options, UcxWorker w, String label) {
        this.options = options;
        this.w = w;
        this.ucp = w.ucp;
        this.label = label;
        this.plain = arena.allocate(UcpAbi.REQUEST_PARAM_SIZE, 8);
    }

    /**
     * Opens an endpoint: its own UCP context and worker. {@code options.device()} restricts UCX to that network
     * device ({@code NET_DEVICES}); {@code busyPoll} lets the progress thread spin {@code spin} rounds before it
     * sleeps (off: it sleeps at once); port, GID index, link type and queue pairs are verbs notions UCX decides itself.
     */
    public static UcxEndpoint open(String library, EndpointOptions options, int spin, int pollMillis) {
        if (options == null) throw new IllegalArgumentException("endpoint options must not be null");
        Map<String, String> settings = options.device() == null ? Map.of() : Map.of("NET_DEVICES", options.device());
        String label = "ucx-ep" + SERIAL.incrementAndGet() + (options.device() == null ? "" : "@" + options.device());
        UcxWorker w = UcxWorker.open(
                library,
                "unicomm-" + label + "-progress",
                options.busyPoll() ? spin : 0,
                pollMillis,
                false,
                UcpAbi.FEATURE_TAG | UcpAbi.FEATURE_RMA,
                settings);
        return new UcxEndpoint(options, w, label);
    }

    // ---------------------------------------------------------------- connection

    @Override
    public byte[] localInfo() {
        ensureOpen();
        Map<String, EndpointInfo.Region> mine = new LinkedHashMap<>();
        for (LocalRegion r : regions.all())
            mine.put(
                    r.name(),
                    new EndpointInfo.Region(r.memory().address(), r.memory().byteSize(), r.rkey()));
        return new EndpointInfo(id, w.address(), mine).encode();
    }

    @Override
    public synchronized void connect(byte[] remoteInfo) {
        ensureOpen();
        if (ep != null)
            throw new IllegalStateException(label + " is already connected; open a new endpoint for another peer");
        EndpointInfo info = EndpointInfo.decode(remoteInfo);
        lifecycle.writeLock().lock();
        try (Arena a = Arena.ofConfined()) {
            ensureOpen();
            long errors = EndpointErrors.register((pe, status) -> peerFailed(status));
            MemorySegment params = EndpointErrors.endpointParams(a, info.workerAddress(), errors, 0);
            MemorySegment out = a.allocate(ValueLayout.ADDRESS);
            byte s = ucp.epCreate(w.worker, params, out);
            if (s != UcpAbi.OK) {
                EndpointErrors.unregister(errors);
                throw new CommException(label + ": ucp_ep_create to the peer failed: " + ucp.statusString(s)
                        + " (UCX status " + s + ")");
            }
            MemorySegment created = out.get(ValueLayout.ADDRESS, 0);
            try {
                remote = unpack(created, info);
            } catch (RuntimeException e) {
                closeEp(created, true);
                EndpointErrors.unregister(errors);
                throw e;
            }
            errorsId = errors;
            peerId = info.endpointId();
            ep = created;
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    private Map<String, RemoteRegion> unpack(MemorySegment endpoint, EndpointInfo info) {
        Map<String, RemoteRegion> out = new HashMap<>();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment key = a.allocate(ValueLayout.ADDRESS);
            for (var e : info.regions().entrySet()) {
                byte s = ucp.rkeyUnpack(
                        endpoint,
                        a.allocateFrom(ValueLayout.JAVA_BYTE, e.getValue().rkey()),
                        key);
                if (s != UcpAbi.OK) {
                    out.values().forEach(r -> ucp.rkeyDestroy(r.rkey()));
                    throw new IllegalArgumentException(
                            "remote region '" + e.getKey() + "': UCX cannot unpack its rkey (" + ucp.statusString(s)
                                    + "); the info must come from a ucx endpoint of a UCX with the same transports");
                }
                out.put(
                        e.getKey(),
                        new RemoteRegion(
                                e.getValue().address(), e.getValue().length(), key.get(ValueLayout.ADDRESS, 0)));
            }
        }
        return Map.copyOf(out);
    }

    @Override
    public boolean isConnected() {
        return ep != null && !closed && broken == null;
    }

    @Override
    public void updateRemote(byte[] remoteInfo) {
        ensureOpen();
        EndpointInfo info = EndpointInfo.decode(remoteInfo);
        Map<String, RemoteRegion> old;
        lifecycle.writeLock().lock();
        try {
            ensureOpen();
            if (ep == null)
                throw new IllegalStateException("updateRemote before connect: call connect(remoteInfo) first");
            if (info.endpointId() != peerId)
                throw new IllegalArgumentException(
                        "updateRemote: the info comes from another endpoint than the connected peer");
            old = remote;
            remote = unpack(ep, info); // transfers posted from now on use the new keys
        } finally {
            lifecycle.writeLock().unlock();
        }
        retire(old);
    }

    /** Destroys replaced rkeys once the transfers already posted with them completed (an endpoint flush): UCX may still use them. */
    private void retire(Map<String, RemoteRegion> old) {
        if (old.isEmpty()) return;
        CompletableFuture<Object> flushed;
        lifecycle.readLock().lock();
        try {
            flushed = refusal("updateRemote") != null
                    ? CompletableFuture.completedFuture(null)
                    : post(false, (param, userData) -> ucp.epFlush(ep, param), 0, MemorySegment.NULL);
        } finally {
            lifecycle.readLock().unlock();
        }
        try {
            flushed.get(options.timeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // a broken or stuck endpoint: its close force-closes it first, then destroys the keys it still knows (the
            // new ones)
        }
        lifecycle.readLock().lock();
        try {
            if (!closed)
                old.values().forEach(r -> ucp.rkeyDestroy(r.rkey())); // after close the worker is gone: leave them
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    // ---------------------------------------------------------------- regions

    @Override
    public void registerRegion(String name, Memory memory) {
        ensureOpen();
        EndpointChecks.checkRegionName(name, memory);
        if (!accepts(memory.kind()))
            throw new IllegalArgumentException(
                    "region '" + name + "': " + memory.kind() + " memory cannot be registered on a ucx endpoint "
                            + "(host memory only: this UCX has no transport for it)");
        EndpointChecks.checkRegistrable(name, memory);
        regions.add(name, () -> map(name, memory));
    }

    /** Maps {@code memory} with {@code ucp_mem_map} and packs its remote key. */
    private LocalRegion map(String name, Memory memory) {
        lifecycle.readLock().lock();
        try (Arena a = Arena.ofConfined()) {
            ensureOpen();
            MemorySegment params = a.allocate(UcpAbi.MEM_MAP_PARAMS_SIZE, 8);
            params.set(
                    ValueLayout.JAVA_LONG,
                    UcpAbi.MEM_MAP_FIELD_MASK,
                    UcpAbi.MEM_MAP_PARAM_FIELD_ADDRESS | UcpAbi.MEM_MAP_PARAM_FIELD_LENGTH);
            params.set(ValueLayout.ADDRESS, UcpAbi.MEM_MAP_ADDRESS, memory.segment());
            params.set(ValueLayout.JAVA_LONG, UcpAbi.MEM_MAP_LENGTH, memory.byteSize());
            MemorySegment out = a.allocate(ValueLayout.ADDRESS), len = a.allocate(ValueLayout.JAVA_LONG);
            Ucx.check(
                    ucp,
                    ucp.memMap(w.context, params, out),
                    "ucp_mem_map (region '" + name + "', " + memory.byteSize() + " bytes)");
            MemorySegment memh = out.get(ValueLayout.ADDRESS, 0);
            byte s = ucp.rkeyPack(w.context, memh, out, len);
            if (s != UcpAbi.OK) {
                ucp.memUnmap(w.context, memh);
                Ucx.check(ucp, s, "ucp_rkey_pack (region '" + name + "')");
            }
            MemorySegment packed = out.get(ValueLayout.ADDRESS, 0);
            byte[] rkey = packed.reinterpret(len.get(ValueLayout.JAVA_LONG, 0)).toArray(ValueLayout.JAVA_BYTE);
            ucp.rkeyBufferRelease(packed);
            return new LocalRegion(name, memory, memh, rkey);
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    @Override
    public void unregisterRegion(String name) {
        ensureOpen();
        LocalRegion r = regions.remove(name);
        lifecycle.writeLock().lock(); // no transfer is being posted from it
        try {
            if (!closed) ucp.memUnmap(w.context, r.memh()); // else close unmaps (or already unmapped) it
        } finally {
            lifecycle.writeLock().unlock();
        }
    }

    @Override
    public List<String> regions() {
        return regions.names();
    }

    /** Host memory only: Debian's UCX has no CUDA or ROCm transport, and this endpoint does not pass memory types. */
    @Override
    public boolean accepts(MemoryKind kind) {
        return kind != null && kind.isHost();
    }

    // ---------------------------------------------------------------- transfers

    @Override
    public CompletableFuture<Void> readBatch(String name, long[] remoteOffsets, long[] localOffsets, long length) {
        return batch("readBatch", false, name, remoteOffsets, localOffsets, length);
    }

    @Override
    public CompletableFuture<Void> writeBatch(String name, long[] remoteOffsets, long[] localOffsets, long length) {
        return batch("writeBatch", true, name, remoteOffsets, localOffsets, length);
    }

    private CompletableFuture<Void> batch(
            String op, boolean put, String name, long[] remoteOffsets, long[] localOffsets, long length) {
        LocalRegion l = localRegion(op, name);
        RemoteRegion r = remoteRegion(op, name);
        if (remoteOffsets == null || localOffsets == null)
            throw new IllegalArgumentException(op + ": offset arrays must not be null");
        if (remoteOffsets.length != localOffsets.length)
            throw new IllegalArgumentException(op + ": " + remoteOffsets.length + " remote offsets but "
                    + localOffsets.length + " local offsets; they must pair up");
        EndpointChecks.checkLength(op, length);
        for (int i = 0; i < remoteOffsets.length; i++) {
            EndpointChecks.checkRange(
                    op + " local[" + i + "]",
                    name,
                    localOffsets[i],
                    length,
                    l.memory().byteSize());
            EndpointChecks.checkRange(op + " remote[" + i + "]", name, remoteOffsets[i], length, r.length());
        }
        if (remoteOffsets.length == 0) return CompletableFuture.completedFuture(null);
        return outcome(op, flushAfter(op, put, l, r, remoteOffsets, localOffsets, length), x -> null);
    }

    /** Posts the puts or gets, then an endpoint flush; the raw future completes with the flush. */
    private CompletableFuture<Object> flushAfter(
            String op,
            boolean put,
            LocalRegion l,
            RemoteRegion r,
            long[] remoteOffsets,
            long[] localOffsets,
            long length) {
        lifecycle.readLock().lock();
        try {
            CompletableFuture<Object> refused = refusal(op);
            if (refused != null) return refused;
            RemoteRegion current = remote.get(l.name());
            if (current == null || current.rkey() != r.rkey())
                return CompletableFuture.failedFuture(new IllegalStateException(
                        op + ": the peer's region '" + l.name() + "' changed (updateRemote) while posting; retry"));
            long base = l.memory().address();
            for (int i = 0; i < remoteOffsets.length; i++) {
                MemorySegment req = put
                        ? ucp.put(ep, base + localOffsets[i], length, r.address() + remoteOffsets[i], r.rkey(), plain)
                        : ucp.get(ep, base + localOffsets[i], length, r.address() + remoteOffsets[i], r.rkey(), plain);
                long p = req.address();
                if (UcpAbi.isError(p)) return failedStatus(UcpAbi.status(p));
                if (p != 0) ucp.requestFree(req); // UCX completes it; the flush below waits for it
            }
            return post(false, (param, userData) -> ucp.epFlush(ep, param), 0, MemorySegment.NULL);
        } finally {
            lifecycle.readLock().unlock();
        }
    }

    @Override
    public CompletableFuture<Void> writeWithImm(
            String name, long remoteOffset, long localOffset, long length, int imm) {
        LocalRegion l = localRegion("writeWithImm", name);
        RemoteRegion r = remoteRegion("writeWithImm", name);
        EndpointChecks.checkLength("writeWithImm", length);
        EndpointChecks.checkRange(
                "writeWithImm local", name, localOffset, length, l.memory().byteSize());
        EndpointChecks.checkRange("writeWithImm remote", name, remoteOffset, length, r.length());
        CompletableFuture<Object> written =
                flushAfter("writeWithImm", true, l, r, new long[] {remoteOffset}, new long[] {localOffset}, length);
        long tag = IMM_FLAG | (length << 32) | (imm & 0xFFFF_FFFFL);
        return outcome("writeWithImm", message("writeWithImm", written, tag, 0, 0), x -> null);
    }

    @Override
    public CompletableFuture<Void> send(String name, long offset, long length) {
        LocalRegion l = localRegion("send", name);
        EndpointChecks.checkLength("send", length);
        EndpointChecks.checkRange("send", name, offset, length, l.memory().byteSize());
        return outcome("send", message("send", null, 0, l.memory().address() + offset, length), x -> null);
    }

    /**
     * Sends a tagged message once {@code after} (if any) completed and every earlier message was issued, so
     * messages leave in call order. A failed {@code after} fails the message without sending it.
     */
    private CompletableFuture<Object> message(
            String op, CompletableFuture<Object> after, long tag, long buffer, long length) {
        CompletableFuture<Void> issued = new CompletableFuture<>();
        CompletableFuture<Void> previous;
        synchronized (messageOrder) {
            previous = lastMessageIssued;
            lastMessageIssued = issued;
        }
        CompletableFuture<?> gate = after == null ? previous : CompletableFuture.allOf(previous, after);
        CompletableFuture<Object> result = new CompletableFuture<>();
        gate.whenComplete((x, err) -> {
            try {
                if (err != null) {
                    result.completeExceptionally(
                            err instanceof java.util.concurrent.CompletionException c && c.getCause() != null
                                    ? c.getCause()
                                    : err);
                    return;
                }
                lifecycle.readLock().lock();
                try {
                    CompletableFuture<Object> refused = refusal(op);
                    CompletableFuture<Object> sent = refused != null
                            ? refused
                            : post(
                                    false,
                                    (param, userData) -> ucp.tagSend(ep, buffer, length, tag, param),
                                    0,
                                    MemorySegment.NULL);
                    sent.whenComplete((v, e) -> {
                        if (e != null) result.completeExceptionally(e);
                        else result.complete(v);
                    });
                } finally {
                    lifecycle.readLock().unlock();
                }
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            } finally {
                issued.complete(null);
            }
        });
        return result;
    }

    @Override
    public CompletableFuture<Received> recv(String name, long offset, long length) {
        LocalRegion l = localRegion("recv", name);
        EndpointChecks.checkLength("recv", length);
        EndpointChecks.checkRange("recv", name, offset, length, l.memory().byteSize());
        CompletableFuture<Object> raw;
        lifecycle.readLock().lock();
        try (Arena a = Arena.ofConfined()) {
            CompletableFuture<Object> refused = refusal("recv");
            MemorySegment info = a.allocate(UcpAbi.TAG_RECV_INFO_SIZE, 8);
            long buffer = l.memory().address() + offset;
            raw = refused != null
                    ? refused
                    : post(
                            true,
                            (param, userData) -> ucp.tagRecv(w.worker, buffer, length, 0, 0, param),
                            UcpAbi.OP_ATTR_FIELD_RECV_INFO,
                            info);
        } finally {
            lifecycle.readLock().unlock();
        }
        return outcome("recv", raw, x -> {
            Completions.Tagged t = (Completions.Tagged) x;
            return (t.tag() & IMM_FLAG) != 0
                    ? new Received((t.tag() >>> 32) & 0x7FFF_FFFFL, OptionalInt.of((int) t.tag()))
                    : new Received(t.length(), OptionalInt.empty());
        });
    }

    private interface Poster {
        MemorySegment post(MemorySegment param, long userData);
    }

    /**
     * Posts one request with a completion callback. The pending entry exists before the call (the progress
     * thread may run the callback before the call returns); an in-place completion or an immediate error
     * completes the future here. {@code info}: a {@code ucp_tag_recv_info_t} for receives that complete in place.
     */
    private CompletableFuture<Object> post(boolean receive, Poster poster, int extraAttrs, MemorySegment info) {
        Completions.Pending p = new Completions.Pending(this, receive, ucp);
        long key = Completions.register(p);
        try (Arena a = Arena.ofConfined()) {
            MemorySegment param = a.allocate(UcpAbi.REQUEST_PARAM_SIZE, 8);
            param.set(
                    ValueLayout.JAVA_INT,
                    UcpAbi.REQ_OP_ATTR_MASK,
                    UcpAbi.OP_ATTR_FIELD_CALLBACK | UcpAbi.OP_ATTR_FIELD_USER_DATA | extraAttrs);
            param.set(ValueLayout.ADDRESS, UcpAbi.REQ_CB, receive ? Completions.RECV : Completions.SEND);
            param.set(ValueLayout.ADDRESS, UcpAbi.REQ_USER_DATA, MemorySegment.ofAddress(key));
            if ((extraAttrs & UcpAbi.OP_ATTR_FIELD_RECV_INFO) != 0)
                param.set(ValueLayout.ADDRESS, UcpAbi.REQ_RECV_INFO, info);
            MemorySegment req = poster.post(param, key);
            long r = req.address();
            if (r == 0) {
                Completions.forget(key);
                p.future.complete(receive ? Completions.read(info) : null);
            } else if (UcpAbi.isError(r)) {
                Completions.forget(key);
                return failedStatus(UcpAbi.status(r));
            } else {
                p.request = req;
                w.wake();
            }
        } catch (RuntimeException e) {
            Completions.forget(key);
            throw e;
        }
        return p.future;
    }

    private CompletableFuture<Object> failedStatus(byte status) {
        return CompletableFuture.failedFuture(new Completions.StatusException(status, ucp.statusString(status)));
    }

    /** Turns the raw outcome into the API's: a UCX status becomes a {@link CommException}, which also breaks the endpoint. */
    private <T> CompletableFuture<T> outcome(String op, CompletableFuture<Object> raw, Function<Object, T> value) {
        CompletableFuture<T> out = new CompletableFuture<>();
        raw.whenComplete((v, e) -> {
            if (e == null) {
                out.complete(value.apply(v));
                return;
            }
            Throwable cause =
                    e instanceof java.util.concurrent.CompletionException c && c.getCause() != null ? c.getCause() : e;
            if (cause instanceof Completions.StatusException s) {
                CommException c = closed
                        ? new CommException(
                                label + ": " + op + " did not complete: the endpoint was closed with it outstanding")
                        : new CommException(label + ": " + op + " failed: " + s.getMessage());
                if (!closed && broken == null) broken = c;
                out.completeExceptionally(c);
            } else {
                out.completeExceptionally(cause);
            }
        });
        return out;
    }

    @Override
    public <T> T await(CompletableFuture<T> future) {
        return EndpointChecks.await(future, options.timeout(), "UCX transfer on " + label, "a UCX transfer");
    }

    // ---------------------------------------------------------------- checks

    private void ensureOpen() {
        if (closed) throw new IllegalStateException(label + " is closed");
    }

    /** Null while the endpoint may post; else a failed future saying why not (checked again under the lifecycle lock). */
    private CompletableFuture<Object> refusal(String op) {
        if (closed) return CompletableFuture.failedFuture(new IllegalStateException(op + ": " + label + " is closed"));
        CommException b = broken;
        if (b != null)
            return CompletableFuture.failedFuture(
                    new CommException(op + ": the connection is broken by an earlier error: " + b.getMessage(), b));
        return null;
    }

    private LocalRegion localRegion(String op, String name) {
        ensureOpen();
        EndpointChecks.checkConnected(op, broken, ep != null);
        return regions.get(op, name);
    }

    private RemoteRegion remoteRegion(String op, String name) {
        return EndpointChecks.remoteRegion(op, name, remote);
    }

    // ---------------------------------------------------------------- failures and close

    /** The error handler (on the progress thread): the peer is gone; every outstanding transfer fails with that. */
    private void peerFailed(byte status) {
        CommException e = new CommException(label + ": the peer is gone: UCX reported " + ucp.statusString(status)
                + " (UCX status " + status + ") on the endpoint");
        if (broken == null) broken = e;
        failAll(broken);
        w.onProgressThread(this::cancelReceives); // not from inside the error callback
    }

    private void failAll(RuntimeException cause) {
        Completions.of(this).values().forEach(p -> p.future.completeExceptionally(cause));
    }

    /** On the progress thread: cancels posted receives; their callbacks (status CANCELED) free them. */
    private void cancelReceives() {
        for (Completions.Pending p : Completions.of(this).values()) {
            MemorySegment req = p.request;
            if (p.receive && req != null) ucp.requestCancel(w.worker, req);
        }
    }

    /**
     * Closes the UCP endpoint ({@code FORCE} when the peer is gone), then destroys the peer's rkeys; waits up to
     * {@value #CLOSE_WAIT_MILLIS} ms (past that the keys are left to the worker's destroy).
     */
    private void closeEp(MemorySegment endpoint, boolean force) {
        CompletableFuture<Object> done = new CompletableFuture<>();
        w.onProgressThread(() -> {
            try {
                cancelReceives();
                CompletableFuture<Object> c = post(
                        false,
                        (param, userData) -> {
                            if (force) {
                                param.set(
                                        ValueLayout.JAVA_INT,
                                        UcpAbi.REQ_OP_ATTR_MASK,
                                        param.get(ValueLayout.JAVA_INT, UcpAbi.REQ_OP_ATTR_MASK)
                                                | UcpAbi.OP_ATTR_FIELD_FLAGS);
                                param.set(ValueLayout.JAVA_INT, UcpAbi.REQ_FLAGS, UcpAbi.EP_CLOSE_FLAG_FORCE);
                            }
                            return ucp.epClose(endpoint, param);
                        },
                        0,
                        MemorySegment.NULL);
                c.whenComplete((v, e) -> { // on the progress thread; no transfer uses the keys any more
                    remote.values().forEach(r -> ucp.rkeyDestroy(r.rkey()));
                    remote = Map.of();
                    done.complete(null);
                });
            } catch (Throwable t) {
                done.complete(null);
            }
        });
        try {
            done.get(CLOSE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // the worker's destroy releases what is left
        }
    }

    /**
     * Fails outstanding transfers, cancels receives, closes the UCP endpoint, unmaps the regions, destroys the worker.
     * Idempotent. The lifecycle lock is never held while waiting for the progress thread: completions that run
     * there may take its read side.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) return;
            closed = true;
        }
        lifecycle.writeLock().lock(); // let posts in flight finish; later ones see `closed`
        lifecycle.writeLock().unlock();
        failAll(new IllegalStateException(label + " was closed with the transfer outstanding"));
        MemorySegment e = ep;
        if (e != null) closeEp(e, broken != null);
        lifecycle.writeLock().lock();
        try {
            for (LocalRegion r : regions.all()) ucp.memUnmap(w.context, r.memh());
            regions.clear();
        } finally {
            lifecycle.writeLock().unlock();
        }
        w.close();
        if (errorsId != 0) EndpointErrors.unregister(errorsId);
        Completions.of(this).keySet().forEach(Completions::forget);
        arena.close();
    }

    /** How long close waits for the UCP endpoint to close: bounded, so a dead peer cannot hold it. */
    static Duration closeWait() {
        return Duration.ofMillis(CLOSE_WAIT_MILLIS);
    }

    @Override
    public String toString() {
        return "UcxEndpoint[" + label + ", " + (ep == null ? "not connected" : broken != null ? "broken" : "connected")
                + (closed ? ", closed" : "") + "]";
    }
}
