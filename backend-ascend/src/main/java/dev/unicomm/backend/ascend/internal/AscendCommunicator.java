package dev.unicomm.backend.ascend.internal;

import dev.unicomm.api.CommAbortedException;
import dev.unicomm.api.CommException;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.DeviceRuntime;
import dev.unicomm.api.Memory;
import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.Stream;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.Store;
import dev.unicomm.spi.support.BackendCommunicatorBase;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;

/**
 * One PE of an Ascend SHMEM job. Opening follows Ascend SHMEM's unique-id bootstrap:
 * {@code aclInit}, {@code aclrtSetDevice}, the config-store TLS switch and key, rank 0's
 * {@code aclshmemx_get_uniqueid} handed to the others through the rendezvous store,
 * {@code aclshmemx_set_attr_uniqueid_args} and {@code aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_UNIQUEID)}.
 * The settings every PE must share (heap size and side, staging size, TLS switch) travel with the
 * unique id and are compared before the collective init, so a mismatch fails fast on every PE.
 */
public final class AscendCommunicator extends BackendCommunicatorBase<AscendHeap, AscendRma, AscendTeam> {
    /** One Ascend SHMEM instance per process: whether it is taken. */
    private static final AtomicBoolean INSTANCE = new AtomicBoolean();
    /** Store key of rank 0's unique id and shared settings. */
    static final String UID_KEY = "unicomm/ascend/uid";
    /** Store key prefix of each rank's verdict on the shared settings. */
    static final String VERDICT_KEY = "unicomm/ascend/settings-ok/";

    private final int device;
    private final Duration timeout;
    private final MemoryKind deviceKind;
    private final long internalStream;
    private final Object internalLock = new Object();
    private final Staging staging;
    private final long hostAnchor;
    private final AscendDevice deviceRuntime;
    private final Set<AutoCloseable> owned = ConcurrentHashMap.newKeySet();
    /** One stream per waiting thread, so a wait-until never holds the internal stream others need. */
    private final Map<Thread, Long> waitStreams = new ConcurrentHashMap<>();

    private final Store store;
    private volatile boolean open = true;
    /** Set once a wait saw the job abort: Ascend SHMEM's collective teardown would wait for dead peers. */
    private volatile boolean aborted;

    private AscendCommunicator(
            BackendContext ctx, AscendSettings s, int device, long internalStream, long stagingPtr, long hostAnchor) {
        super(ctx.rank(), ctx.size());
        int rank = ctx.rank(), size = ctx.size();
        this.device = device;
        this.timeout = ctx.config().timeout();
        this.deviceKind = MemoryKind.ascend(device);
        this.internalStream = internalStream;
        this.store = ctx.store();
        this.staging = new Staging(stagingPtr, s.stagingBytes());
        this.hostAnchor = hostAnchor;
        long userHeap = ctx.config().heapSize();
        AscendHeap heap;
        if (s.hostHeap()) {
            heap = new AscendHeap(
                    true,
                    MemoryKind.HOST,
                    userHeap + AscendHeap.MIN_ALIGNMENT,
                    hostAnchor,
                    AscendHeap.MIN_ALIGNMENT,
                    rank,
                    size,
                    ctx.store());
        } else {
            heap = new AscendHeap(
                    false,
                    deviceKind,
                    userHeap + s.stagingBytes(),
                    stagingPtr,
                    s.stagingBytes(),
                    rank,
                    size,
                    ctx.store());
        }
        parts(heap, new AscendRma(this, null), new AscendTeam(this, AscendTeam.WORLD, 0, 1, size));
        this.deviceRuntime = new AscendDevice(this, deviceKind);
    }

    /** Collective over the job; the libraries are already bound (the provider probed them). */
    public static AscendCommunicator open(BackendContext ctx, AscendSettings s) {
        if (!INSTANCE.compareAndSet(false, true))
            throw new CommException(
                    "this process already has an open ascend communicator, and Ascend SHMEM runs one "
                            + "instance per process (aclshmemx_init_attr refuses a second init): close the other communicator first");
        try {
            return open0(ctx, s);
        } catch (RuntimeException | Error e) {
            AscendNatives.activate(-1);
            INSTANCE.set(false);
            throw e;
        }
    }

    private static AscendCommunicator open0(BackendContext ctx, AscendSettings s) {
        int rank = ctx.rank(), size = ctx.size();
        AscendNatives.aclInit();
        int count = AscendNatives.deviceCount();
        int device = s.device() >= 0 ? s.device() : ctx.config().localRank() % count;
        if (device >= count)
            throw new IllegalArgumentException(
                    AscendSettings.DEVICE + "=" + device + " but only " + count + " NPU(s) are visible");
        if (s.hostHeap() && !AscendNatives.hasHostHeap())
            throw new CommException(AscendSettings.HEAP_SIDE + "=host needs aclshmemx_align/aclshmemx_free, which "
                    + s.shmemLibrary() + " lacks: use the device heap or a newer Ascend SHMEM");
        byte[] tlsKey = s.tlsKey();
        byte[] tlsKeyPassword = s.tlsKeyPassword();
        long heapBytes = ctx.config().heapSize() + s.stagingBytes() + (s.hostHeap() ? AscendHeap.MIN_ALIGNMENT : 0);
        byte[] uid = exchangeUniqueId(ctx, s, heapBytes);

        AscendNatives.setDevice(device);
        AscendNatives.activate(device);
        // Before init: Ascend SHMEM reads the TLS switch only then (on by default, as there).
        AscendNatives.setConfStoreTls(s.tls(), s.tlsInfo());
        if (tlsKey.length > 0) AscendNatives.setConfigStoreTlsKey(tlsKey, tlsKeyPassword);
        AscendNatives.setAttrUniqueIdArgs(rank, size, heapBytes, uid);
        AscendNatives.initAttr((int)
                Math.max(1, Math.min(Integer.MAX_VALUE, (ctx.config().timeout().toMillis() + 999) / 1000)));
        long stream = 0, stagingPtr = 0, anchor = 0;
        try {
            if (AscendNatives.myPe() != rank || AscendNatives.nPes() != size)
                throw new CommException("Ascend SHMEM reports PE " + AscendNatives.myPe() + " of "
                        + AscendNatives.nPes() + " after init, but this is rank " + rank + " of " + size);
            stream = AscendNatives.createStream();
            // The heap's first blocks (identical on every PE): the staging buffer, then the host anchor.
            stagingPtr = AscendNatives.align(4096, s.stagingBytes(), false);
            if (stagingPtr == 0)
                throw new CommException(
                        "aclshmem_align could not place the " + s.stagingBytes() + "-byte staging buffer");
            if (s.hostHeap()) {
                anchor = AscendNatives.align(AscendHeap.MIN_ALIGNMENT, AscendHeap.MIN_ALIGNMENT, true);
                if (anchor == 0)
                    throw new CommException("aclshmemx_align(HOST_SIDE) returned NULL for the heap anchor");
            }
            return new AscendCommunicator(ctx, s, device, stream, stagingPtr, anchor);
        } catch (RuntimeException e) {
            if (stream != 0) AscendNatives.destroyStream(stream);
            try {
                AscendNatives.shmemFinalize();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
    }

    /**
     * Rank 0 asks for the unique id and publishes it with the shared settings; the others take it
     * and compare. Every rank then publishes its verdict and reads all of them, so a mismatch fails
     * on every rank here, before the collective init would wait for ranks that are not coming.
     */
    private static byte[] exchangeUniqueId(BackendContext ctx, AscendSettings s, long heapBytes) {
        String shared =
                "heap=" + heapBytes + ";hostHeap=" + s.hostHeap() + ";staging=" + s.stagingBytes() + ";tls=" + s.tls();
        int uidSize = AscendNatives.uniqueIdSize();
        byte[] uid;
        String verdict = "ok";
        if (ctx.rank() == 0) {
            uid = AscendNatives.uniqueId();
            int version = (uid[0] & 0xff) | (uid[1] & 0xff) << 8 | (uid[2] & 0xff) << 16 | (uid[3] & 0xff) << 24;
            if (version != (1 << 16) + uidSize)
                throw new CommException("aclshmemx_get_uniqueid returned version " + version + ", this binding expects "
                        + ((1 << 16) + uidSize) + " (a " + uidSize
                        + "-byte aclshmemx_uniqueid_t): the library's ABI differs");
            byte[] sharedBytes = shared.getBytes(StandardCharsets.UTF_8);
            byte[] msg = new byte[uidSize + sharedBytes.length];
            System.arraycopy(uid, 0, msg, 0, uidSize);
            System.arraycopy(sharedBytes, 0, msg, uidSize, sharedBytes.length);
            ctx.store().set(UID_KEY, msg);
        } else {
            byte[] msg = ctx.store().get(UID_KEY);
            if (msg.length < uidSize)
                throw new CommException("the unique id from rank 0 is " + msg.length + " bytes, expected " + uidSize);
            String theirs = new String(msg, uidSize, msg.length - uidSize, StandardCharsets.UTF_8);
            if (!theirs.equals(shared)) verdict = "rank 0 has " + theirs + ", rank " + ctx.rank() + " has " + shared;
            uid = Arrays.copyOf(msg, uidSize);
        }
        ctx.store().set(VERDICT_KEY + ctx.rank(), verdict.getBytes(StandardCharsets.UTF_8));
        // Own verdict first: a rank that disagrees fails at once (the others then fail on its verdict,
        // or on the store's abort that names it, whichever they see first).
        for (int i = 0; i < ctx.size(); i++) {
            int r = (ctx.rank() + i) % ctx.size();
            String v = r == ctx.rank() ? verdict : new String(ctx.store().get(VERDICT_KEY + r), StandardCharsets.UTF_8);
            if (!v.equals("ok"))
                throw new IllegalArgumentException(
                        "ascend settings differ between ranks: " + v + " (unicomm.heap.size, "
                                + "unicomm.ascend.heap.side, unicomm.ascend.staging.size and unicomm.ascend.tls must be equal on every rank)");
        }
        return uid;
    }

    // ---- BackendCommunicator --------------------------------------------------------------------

    /** Completes this PE's RMA, then a world barrier on the internal stream, waited for with the timeout. */
    @Override
    public void barrier() {
        ensureOpen();
        barrierInternal(AscendTeam.WORLD, "world barrier");
    }

    @Override
    public boolean acceptsLocal(MemoryKind kind) {
        return kind.isHost() || kind.equals(deviceKind);
    }

    @Override
    public Optional<DeviceRuntime> device() {
        return Optional.of(deviceRuntime);
    }

    /**
     * Collective. After the job aborted (a wait saw a dead rank), only local resources are released:
     * aclshmem_free and aclshmem_finalize synchronize with the peers, which are gone.
     */
    @Override
    public void close() {
        if (!open) return;
        List<Throwable> problems = new ArrayList<>();
        if (!aborted) run(problems, () -> quietInternal("close"));
        for (AutoCloseable c : List.copyOf(owned)) run(problems, c::close);
        open = false;
        if (!aborted && healthy()) {
            run(problems, () -> AscendNatives.free(staging.device, false));
            if (hostAnchor != 0) run(problems, () -> AscendNatives.free(hostAnchor, true));
        }
        for (long ws : waitStreams.values()) run(problems, () -> AscendNatives.destroyStream(ws));
        waitStreams.clear();
        run(problems, () -> await(internalStream, "close"));
        run(problems, () -> AscendNatives.destroyStream(internalStream));
        if (!aborted && healthy()) run(problems, AscendNatives::shmemFinalize);
        staging.close();
        AscendNatives.activate(-1);
        INSTANCE.set(false);
        if (!problems.isEmpty()) {
            CommException e = new CommException(
                    "closing the ascend communicator on rank " + rank() + " failed: " + problems.getFirst(),
                    problems.getFirst());
            problems.stream().skip(1).forEach(e::addSuppressed);
            throw e;
        }
    }

    private interface Step {
        void run() throws Exception;
    }

    private static void run(List<Throwable> problems, Step step) {
        try {
            step.run();
        } catch (Exception e) {
            problems.add(e);
        }
    }

    // ---- for the parts of this backend ------------------------------------------------------------

    Duration timeout() {
        return timeout;
    }

    Staging staging() {
        return staging;
    }

    void ensureOpen() {
        if (!open) throw new IllegalStateException("ascend communicator (rank " + rank() + ") is closed");
    }

    /** Resolves a local operand against this PE's NPU. */
    Operand operand(Memory m, long offset, long bytes) {
        return Operand.of(m, offset, bytes, deviceKind);
    }

    /** Enqueues work on the internal stream and waits for it (one user at a time). */
    void onInternalStream(String what, LongConsumer enqueue) {
        synchronized (internalLock) {
            enqueue.accept(internalStream);
            await(internalStream, what);
        }
    }

    /**
     * Waits until {@code stream} has run everything enqueued so far, polling {@code aclrtStreamQuery}
     * and the rendezvous store's health: a dead rank ends the wait with {@link CommAbortedException}
     * naming it, the timeout with {@link CommTimeoutException}; either way the stream's remaining work
     * is discarded so the stream stays usable.
     */
    void await(long stream, String what) {
        long deadline = System.nanoTime() + timeout.toNanos();
        for (int spins = 0; !AscendNatives.streamDone(stream); spins++) {
            try {
                store.checkHealthy();
            } catch (CommAbortedException e) {
                aborted = true;
                AscendNatives.discardStream(stream);
                throw e;
            }
            if (System.nanoTime() - deadline > 0) {
                AscendNatives.discardStream(stream);
                throw new CommTimeoutException(what, timeout);
            }
            if (spins < 64) Thread.onSpinWait();
            else if (spins < 256) Thread.yield();
            else LockSupport.parkNanos(50_000); // two shared cores: do not burn one polling
        }
    }

    private boolean healthy() {
        try {
            store.checkHealthy();
            return true;
        } catch (CommAbortedException e) {
            aborted = true;
            return false;
        }
    }

    /** The calling thread's wait stream (created on first use; those of finished threads are destroyed then). */
    long waitStream() {
        Long mine = waitStreams.get(Thread.currentThread());
        if (mine != null) return mine;
        for (var e : waitStreams.entrySet()) {
            if (!e.getKey().isAlive() && waitStreams.remove(e.getKey(), e.getValue()))
                AscendNatives.destroyStream(e.getValue());
        }
        long s = AscendNatives.createStream();
        waitStreams.put(Thread.currentThread(), s);
        return s;
    }

    /** Completes every RMA this PE issued: aclshmemx_quiet_on_stream on the internal stream, waited for. */
    void quietInternal(String what) {
        onInternalStream(what + " (quiet)", AscendNatives::quietOnStream);
    }

    /** Quiet, then aclshmemx_barrier_on_stream(team) on the internal stream, waited for with the timeout. */
    void barrierInternal(int team, String what) {
        onInternalStream(what, h -> {
            AscendNatives.quietOnStream(h);
            AscendNatives.barrierOnStream(team, h);
        });
    }

    /**
     * A stream of this PE's device: one of ours, or a foreign handle, which must be an aclrtStream
     * that ACL knows ({@code aclrtStreamQuery} accepts it) before any Ascend SHMEM call sees it.
     */
    Stream checkStream(Stream s) {
        if (s instanceof AclStream a) {
            if (a.owner() != this) throw new IllegalArgumentException(s + " belongs to another communicator");
            if (!a.isOpen()) throw new IllegalStateException(s + " is closed");
            return s;
        }
        checkHandle(s.handle());
        return s;
    }

    /** Fails with ACL's own error (a NativeCallException of aclrtStreamQuery) unless {@code handle} is a stream ACL knows. */
    static void checkHandle(long handle) {
        AscendNatives.streamDone(handle);
    }

    <T extends AutoCloseable> T remember(T resource) {
        owned.add(resource);
        return resource;
    }

    void forget(AutoCloseable resource) {
        owned.remove(resource);
    }

    @Override
    public String toString() {
        return "AscendCommunicator[rank " + rank() + "/" + size() + ", device " + device + ", heap " + heap().kind()
                + "]";
    }
}
