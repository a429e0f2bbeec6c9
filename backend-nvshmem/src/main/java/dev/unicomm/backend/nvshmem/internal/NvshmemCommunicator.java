package dev.unicomm.backend.nvshmem.internal;

import dev.unicomm.api.Collectives;
import dev.unicomm.api.CommException;
import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.DeviceRuntime;
import dev.unicomm.api.Memory;
import dev.unicomm.api.MemoryKind;
import dev.unicomm.api.MoeBuffer;
import dev.unicomm.api.MoeConfig;
import dev.unicomm.api.Rma;
import dev.unicomm.api.SymmetricBuffer;
import dev.unicomm.api.SymmetricHeap;
import dev.unicomm.api.Team;
import dev.unicomm.spi.BackendCommunicator;
import dev.unicomm.spi.BackendContext;
import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One PE of an NVSHMEM job. NVSHMEM allows one PE per process and, in practice, one
 * initialization per process: the first {@code open} initializes it (unique-id bootstrap through
 * the rendezvous store); {@link #close()} releases everything this communicator made but keeps
 * NVSHMEM initialized so that a later {@code open} with the same rank and size reuses it, unless
 * {@code unicomm.nvshmem.finalize=true} asks for {@code nvshmem_finalize} at close. A one-PE
 * communicator opened in a process that is a PE of a larger job ("solo") runs on the same runtime:
 * its PE 0 is this NVSHMEM PE, its buffers come from a symmetric pool reserved at init, its teams
 * have one member and its collectives are local copies.
 *
 * <p>Host-issued operations (blocking RMA, atomics, collectives, copies) run on one internal
 * non-blocking CUDA stream, in issue order, and every wait for it is bounded by the
 * communicator's timeout.
 */
public final class NvshmemCommunicator implements BackendCommunicator, WatchedCall.Job {
    private static final System.Logger LOG = System.getLogger("dev.unicomm.backend.nvshmem");
    /** Bytes of the pinned area before the bounce buffer: result slot, agreement staging. */
    private static final long PINNED_HEADER_MIN = 4096;

    private static final Object PROCESS = new Object();
    private static int initRank = -1, initSize = -1, initDevice = -1, openCount;
    /** Reserved for one-PE communicators in a process that is a PE of a larger job (null otherwise). */
    private static SoloPool soloPool;
    private static boolean soloOpen;
    /** Team handle of a one-PE communicator's teams: no NVSHMEM team, every member is this PE. */
    static final int TEAM_SELF = -2;
    private static boolean finalized;
    /** Usable symmetric heap of the NVSHMEM runtime (what it was initialized with, less our margin). */
    private static long runtimeHeap;
    /** Where offsets count from: the start of NVSHMEM's symmetric heap (set once). */
    private static long heapBase;
    private static final long HEAP_BASE_ALIGNMENT = 2L << 20;
    /** Room in the one-PE pool for a one-PE communicator's own scratch. */
    private static final long SOLO_SCRATCH = 4L << 20;
    /** Why NVSHMEM's collectives cannot run here (limited MPG), or null when they can. */
    private static String noCollectives;
    /** PEs of this job on this PE's GPU (1 unless several share it). */
    private static int gpuSharers = 1;
    /** Symmetric heap NVSHMEM keeps for itself (team and collective work areas) on top of the user's. */
    private static final long RUNTIME_MARGIN = 32L << 20;

    final int rank, size, deviceOrdinal;
    /** A one-PE communicator over the process's NVSHMEM runtime of a larger job: PE 0 is NVSHMEM PE {@code initRank}. */
    final boolean solo;
    final MemoryKind kind;
    final Duration timeout;
    private final dev.unicomm.spi.Store store;
    /** Set once a wait saw the job aborted: GPU work may be stuck on a dead peer, so close skips collective steps. */
    private volatile boolean broken;
    final ReentrantLock lock = new ReentrantLock();
    final long ctrl;
    private final long poll;
    final long pinned;
    final MemorySegment pinnedSeg;
    final long bounce;
    /** Device buffer as large as the bounce buffer: host data is staged here before NVSHMEM moves it. */
    final long staging;
    final long bounceBytes;
    final Scratch scratch;
    private final boolean finalizeOnClose;
    /** unicomm.nvshmem.moe.sms: blocks per MoE kernel, or null for this PE's share of the SMs. */
    private final String moeSms;
    /** unicomm.nvshmem.moe.ll.sms: blocks per low-latency MoE kernel, or null for the whole GPU (this PE's share when shared). */
    private final String moeLlSms;
    /** unicomm.nvshmem.moe.transport: auto (loads/stores where every heap is mapped, else NVSHMEM), loadstore, nvshmem. */
    private final String moeTransport;
    private volatile MoeOpener moeOpener;
    final NvshmemCallAgreement agreement = new NvshmemCallAgreement(this);
    /**
     * unicomm.nvshmem.moe.profile: time the MoE kernels (CUDA events) and print them when a buffer closes. 0 off
     * ({@code false}), 1 events as the host launches ({@code true} or {@code launch}), 2 each timed operation queued
     * behind a short device wait and a barrier of all PEs ({@code aligned}, DeepEP's bench method: no launch gap and
     * no host skew between the PEs inside the events).
     */
    final int moeProfile;
    /** The one stream of every MoE buffer's kernels (0 until the first buffer). */
    private long moeStream;
    private final long heapCapacity;
    private final NvshmemHeap heap;
    private final NvshmemRma rma;
    private final NvshmemTeam world;
    private final NvshmemDevice device;
    private final NvshmemCollectives collectives;
    final Set<NvshmemTeam> teams = new LinkedHashSet<>();
    final Set<NvshmemStream> streams = new LinkedHashSet<>();
    final Set<NvshmemDeviceBuffer> deviceBuffers = new LinkedHashSet<>();
    private volatile boolean open = true;

    /** Symmetric scratch of this communicator: agreement area, alltoallv offsets, in-place copies. */
    record Scratch(long base, long agreeSrc, long agreeDst, long offsetsSend, long offsetsRecv, long data, long dataBytes) {
        static Scratch layout(long base, int size, long dataBytes) {
            long agreeSrc = base, agreeDst = base + 64;
            long offsetsSend = align(agreeDst + 32L * size), offsetsRecv = align(offsetsSend + 16L * size);
            long data = align(offsetsRecv + 16L * size);
            return new Scratch(base, agreeSrc, agreeDst, offsetsSend, offsetsRecv, data, dataBytes);
        }

        long totalBytes() { return data - base + dataBytes; }

        private static long align(long v) { return (v + 255) & ~255L; }
    }

    private NvshmemCommunicator(BackendContext ctx, int deviceOrdinal, long heapCapacity, boolean solo) {
        var config = ctx.config();
        this.solo = solo;
        this.rank = ctx.rank();
        this.size = ctx.size();
        this.deviceOrdinal = deviceOrdinal;
        this.kind = MemoryKind.cuda(deviceOrdinal);
        this.timeout = config.timeout();
        this.store = ctx.store();
        this.heapCapacity = heapCapacity;
        this.finalizeOnClose = Boolean.parseBoolean(config.property("nvshmem.finalize", "false"));
        this.moeSms = config.property("nvshmem.moe.sms", null);
        this.moeLlSms = config.property("nvshmem.moe.ll.sms", null);
        this.moeProfile = moeProfileMode(config.property("nvshmem.moe.profile", "false"));
        this.moeTransport = config.property("nvshmem.moe.transport", "auto").trim().toLowerCase(java.util.Locale.ROOT);
        this.bounceBytes = Long.parseLong(config.property("nvshmem.bounceBytes", Long.toString(4L << 20)));
        long scratchBytes = solo ? 4096 : Long.parseLong(config.property("nvshmem.scratchBytes", Long.toString(4L << 20)));
        this.ctrl = NvOps.streamCreate();
        this.poll = NvOps.streamCreate();
        long header = Math.max(PINNED_HEADER_MIN, (256 + 32L * size + 4095) & ~4095L);
        this.pinned = NvOps.pinnedAlloc(header + bounceBytes);
        this.pinnedSeg = MemorySegment.ofAddress(pinned).reinterpret(header + bounceBytes);
        this.bounce = pinned + header;
        this.staging = NvOps.devAlloc(bounceBytes);
        try {
            // Registered so that remote transports (IB) may use it as a local buffer; P2P does not need it.
            NvOps.registerHost(pinned, header + bounceBytes);
        } catch (RuntimeException e) {
            LOG.log(Level.DEBUG, "nvshmemx_buffer_register of the bounce buffer failed (only remote transports need it): {0}", e.getMessage());
        }
        long probeLen = Scratch.layout(0, size, scratchBytes).totalBytes();
        long base;
        if (solo) {
            base = soloPool.allocate(probeLen, HEAP_BASE_ALIGNMENT);
            if (base == 0) throw new CommException("the one-PE pool holds no room for the communicator's scratch");
        } else {
            // 2 MiB aligned, so that offsets keep the alignment of what is allocated after it (up to 2 MiB).
            base = NvOps.symAlloc(probeLen, HEAP_BASE_ALIGNMENT);
        }
        this.scratch = Scratch.layout(base, size, scratchBytes);
        synchronized (PROCESS) {
            // Offsets of every communicator count from the start of NVSHMEM's heap, so they are never
            // negative and equal on every PE. (Not the first allocation: NVSHMEM may later place a
            // buffer below it, in room its own start-up used and gave back.)
            if (heapBase == 0 && !solo) {
                long start = NvOps.heapBase();
                heapBase = start != 0 && start <= base ? start : base;
                if (heapBase != start)
                    LOG.log(Level.WARNING, "NVSHMEM reports its heap at 0x{0}, not below the first buffer at 0x{1}: offsets count from that buffer",
                            Long.toHexString(start), Long.toHexString(base));
            }
        }
        this.heap = new NvshmemHeap(this, solo ? base : heapBase);
        this.world = new NvshmemTeam(this, solo ? TEAM_SELF : NvOps.TEAM_WORLD, identity(size), false);
        this.rma = new NvshmemRma(this, null);
        this.device = new NvshmemDevice(this);
        this.collectives = new NvshmemCollectives(this);
    }

    /**
     * Opens this PE (collective over the job). Several communicators of the same job shape (rank,
     * size) may be open at once and share the NVSHMEM runtime; a different shape cannot: NVSHMEM
     * runs one job per process.
     */
    /** As {@link #open(BackendContext, int)}, with the native MoE kernels behind {@link #nativeMoe}. */
    public static NvshmemCommunicator open(BackendContext ctx, int deviceCount, MoeOpener moe) {
        NvshmemCommunicator c = open(ctx, deviceCount);
        c.moeOpener = moe;
        return c;
    }

    public static NvshmemCommunicator open(BackendContext ctx, int deviceCount) {
        var config = ctx.config();
        int device = chooseDevice(config.property("nvshmem.device", null), config.localRank(), deviceCount);
        synchronized (PROCESS) {
            if (finalized)
                throw new CommException("NVSHMEM was finalized in this process (unicomm.nvshmem.finalize=true); it cannot be initialized again");
            if (initRank < 0) {
                initialize(ctx, device);
            } else if (ctx.size() == 1 && initSize > 1 && soloPool != null) {
                if (soloOpen)
                    throw new CommException("a one-PE NVSHMEM communicator is already open in this process; close it first");
                long capacity = Math.min(config.heapSize(), soloPool.size() - SOLO_SCRATCH);
                NvshmemCommunicator c = new NvshmemCommunicator(ctx, initDevice, capacity, true);
                soloOpen = true;
                openCount++;
                return c;
            } else if (initRank != ctx.rank() || initSize != ctx.size()) {
                throw new CommException("NVSHMEM is already initialized in this process as PE " + initRank + " of " + initSize
                        + "; it cannot also be PE " + ctx.rank() + " of " + ctx.size() + ": NVSHMEM runs one job per process "
                        + "(open communicators of this process's job shape, or start another process)");
            } else {
                ctx.store().barrier("nvshmem/reopen");
            }
            long capacity = Math.min(config.heapSize(), runtimeHeap);
            NvshmemCommunicator c = new NvshmemCommunicator(ctx, device, capacity, false);
            openCount++;
            return c;
        }
    }

    static int chooseDevice(String configured, int localRank, int deviceCount) {
        if (configured != null && !configured.isBlank()) {
            int d;
            try {
                d = Integer.parseInt(configured.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("unicomm.nvshmem.device must be a device ordinal, got '" + configured + "'");
            }
            if (d < 0 || d >= deviceCount)
                throw new IllegalArgumentException("unicomm.nvshmem.device=" + d + " but this process sees CUDA devices 0.." + (deviceCount - 1));
            return d;
        }
        return localRank % deviceCount;
    }

    /** Environment NVSHMEM reads at init, then the unique-id exchange and nvshmemx_init_attr. */
    private static void initialize(BackendContext ctx, int device) {
        // NVLink SHARP (multicast) can take GPUs out of service on shared hosts: off unless the user set it.
        NvOps.setenv("NVSHMEM_DISABLE_NVLS", "1", false);
        String userSize = System.getenv("NVSHMEM_SYMMETRIC_SIZE");
        long pool = ctx.size() > 1 ? dev.unicomm.api.ByteSize.parse("unicomm.nvshmem.soloPoolBytes", ctx.config().property("nvshmem.soloPoolBytes", "64M")) + SOLO_SCRATCH : 0;
        long total = ctx.config().heapSize() + RUNTIME_MARGIN + pool;
        if (userSize != null) {
            total = dev.unicomm.api.ByteSize.parse("NVSHMEM_SYMMETRIC_SIZE", userSize);
        } else {
            NvOps.setenv("NVSHMEM_SYMMETRIC_SIZE", Long.toString(total), true);
        }
        shareGpuUnderMps(ctx, device);
        byte[] uid;
        if (ctx.rank() == 0) {
            uid = NvOps.uniqueId();
            ctx.store().set("nvshmem/uniqueid", uid);
        } else {
            uid = ctx.store().get("nvshmem/uniqueid");
        }
        if (uid.length != NvOps.UNIQUE_ID_BYTES)
            throw new CommException("the NVSHMEM unique id from the store has " + uid.length + " bytes, expected " + NvOps.UNIQUE_ID_BYTES);
        NvOps.init(ctx.rank(), ctx.size(), uid, device);
        runtimeHeap = Math.max(0, total - RUNTIME_MARGIN - pool);
        initDevice = device;
        if (pool > 0) soloPool = new SoloPool(NvOps.symAlloc(pool, HEAP_BASE_ALIGNMENT), pool); // collective, once
        if (NvOps.initStatus() == NvOps.STATUS_LIMITED_MPG) {
            noCollectives = "NVSHMEM runs in limited MPG mode (several PEs share a GPU without MPS, or their CUDA_MPS_ACTIVE_THREAD_PERCENTAGE add up to more than 100): "
                    + "its collectives are unavailable; start MPS (nvidia-cuda-mps-control -d) to get them";
            LOG.log(Level.WARNING, noCollectives + "; using the portable collectives where present");
        }
        initRank = ctx.rank();
        initSize = ctx.size();
    }

    /**
     * NVSHMEM gives several PEs on one GPU its full API (collectives included) only under MPS with
     * active-thread percentages that add up to at most 100. When MPS runs, this PE shares its GPU
     * with k PEs of the job and the user set no percentage, give this process 100/k (read by CUDA
     * when the context is created, and by NVSHMEM at init, both after this point).
     */
    private static void shareGpuUnderMps(BackendContext ctx, int device) {
        String me = hostName() + "#" + device;
        ctx.store().set("nvshmem/gpu/" + ctx.rank(), me.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        int sharers = 0;
        for (int r = 0; r < ctx.size(); r++)
            if (me.equals(new String(ctx.store().get("nvshmem/gpu/" + r), java.nio.charset.StandardCharsets.UTF_8))) sharers++;
        gpuSharers = Math.max(1, sharers);
        if (sharers > 1 && System.getenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE") == null && mpsRunning())
            NvOps.setenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE", Integer.toString(Math.max(1, 100 / sharers)), false);
    }

    private static boolean mpsRunning() {
        String pipes = System.getenv().getOrDefault("CUDA_MPS_PIPE_DIRECTORY", "/tmp/nvidia-mps");
        return java.nio.file.Files.exists(java.nio.file.Path.of(pipes, "control"));
    }

    private static String hostName() {
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return System.getenv().getOrDefault("HOSTNAME", "localhost");
        }
    }

    private static int[] identity(int n) {
        int[] r = new int[n];
        for (int i = 0; i < n; i++) r[i] = i;
        return r;
    }

    public void ensureOpen() {
        if (!open) throw new IllegalStateException("NVSHMEM communicator (rank " + rank + ") is closed");
    }

    boolean isOpen() { return open; }

    long heapCapacity() { return heapCapacity; }

    /**
     * Waits until {@code stream} has finished its work, at most the communicator's timeout. Spins
     * briefly (small operations finish within microseconds), then backs off.
     */
    public void await(long stream, String what) {
        if (NvOps.streamDone(stream)) return;
        long start = System.nanoTime();
        long limit = timeout.toNanos();
        long park = 2_000;
        while (!NvOps.streamDone(stream)) {
            long waited = System.nanoTime() - start;
            checkHealthy(); // a dead peer: fail now, naming it, instead of at the timeout
            if (waited > limit) {
                broken = true;
                throw new CommTimeoutException(what + " (CUDA stream 0x" + Long.toHexString(stream) + " still busy)", timeout);
            }
            if (waited < 200_000) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(park);
                park = Math.min(park * 2, 1_000_000);
            }
        }
    }

    static long soloPoolAllocate(long bytes, long alignment) { return soloPool.allocate(bytes, alignment); }

    /** The NVSHMEM PE behind this communicator's PE {@code pe}. */
    int npe(int pe) { return solo ? initRank : pe; }

    /** Enqueues a barrier over team {@code handle}; on a one-PE team there is nobody to wait for: a quiet. */
    public void teamBarrier(int handle, long stream) {
        if (handle == TEAM_SELF) NvOps.quiet(stream);
        else NvOps.barrier(handle, stream);
    }

    /**
     * Gives scratch or buffer memory back: to the one-PE pool, or to NVSHMEM (collective). After an
     * abort nvshmem_free would wait forever for the dead PE in its barrier: the memory is left to
     * process exit instead (semantics 7.2: survivors can still close).
     */
    void symFree(long addr) {
        if (solo) soloPool.free(addr);
        else if (!aborted()) WatchedCall.run(this, "nvshmem_free", () -> { NvOps.symFree(addr); return null; });
    }

    /** Whether the job was aborted or a wait timed out (marks this communicator broken); never throws. */
    public boolean aborted() {
        if (broken) return true;
        try {
            checkHealthy();
            return false;
        } catch (RuntimeException e) {
            return true;
        }
    }

    /** Marks this communicator broken: a wait failed, so close skips collective steps. */
    @Override public void markBroken() { broken = true; }

    /** Throws CommAbortedException if the job was aborted (a peer died); marks this communicator broken. */
    public void checkHealthy() {
        try {
            store.checkHealthy();
        } catch (RuntimeException e) {
            broken = true;
            throw e;
        }
    }

    /** The 8-byte result slot in pinned memory. */
    long slot() { return pinned; }

    long readSlot() { return pinnedSeg.get(ValueLayout.JAVA_LONG, 0); }

    /** Reads the 64-bit word at device address {@code addr} (host view: through the poll stream). */
    long readWord(long addr, long stream) {
        lock.lock();
        try {
            long s = stream == NvOps.HOST ? poll : stream;
            NvOps.copyAsync(slot(), addr, 8, s);
            await(s, "reading a signal word");
            return readSlot();
        } finally {
            lock.unlock();
        }
    }

    /**
     * The device address of local memory {@code m} at {@code offset} for an operation that needs
     * device memory of this PE's GPU; host memory or another device's memory is refused.
     */
    public long deviceAddress(String what, Memory m, long offset) {
        MemoryKind k = m.kind();
        if (k.isHost())
            throw new IllegalArgumentException(what + ": needs device memory on " + kind + " but got host memory; "
                    + "stream-ordered operations cannot read or write host memory: copy it to device memory first (DeviceRuntime.allocate + copy)");
        if (!k.equals(kind))
            throw new IllegalArgumentException(what + ": memory on " + k + " but this PE drives " + kind);
        return m.address() + offset;
    }

    @Override public int rank() { return rank; }
    @Override public int size() { return size; }

    /** The job's timeout, which bounds every wait. */
    public Duration timeout() { return timeout; }

    /** The memory kind of this communicator's heap (CUDA device memory of its GPU). */
    public MemoryKind kind() { return kind; }

    /** The timing mode of unicomm.nvshmem.moe.profile: 0 off, 1 as launched, 2 aligned (see the field). */
    public int moeProfileMode() { return moeProfile; }

    static int moeProfileMode(String value) {
        return switch (value.trim().toLowerCase(java.util.Locale.ROOT)) {
            case "false" -> 0;
            case "true", "launch" -> 1;
            case "aligned" -> 2;
            default -> throw new IllegalArgumentException(
                    "unicomm.nvshmem.moe.profile must be false, true (= launch) or aligned, got '" + value + "'");
        };
    }
    @Override public SymmetricHeap heap() { return heap; }
    @Override public Rma rma() { return rma; }
    @Override public Team world() { return world; }

    @Override public void barrier() {
        ensureOpen();
        world.barrier();
    }

    @Override public boolean acceptsLocal(MemoryKind k) { return k.isHost() || k.equals(kind); }

    /** NVSHMEM's team collectives; empty in limited MPG mode, where calling them would end the process. */
    @Override public Optional<Collectives> nativeCollectives() {
        return noCollectives == null ? Optional.of(collectives) : Optional.empty();
    }

    @Override public Optional<DeviceRuntime> device() { return Optional.of(device); }

    /** Collectives, heap and team calls agree across members (puts and barriers); none on a one-PE communicator. */
    @Override public Optional<dev.unicomm.spi.CallAgreement> callAgreement() {
        return solo || size == 1 ? Optional.empty() : Optional.of(agreement);
    }

    /**
     * The CUDA MoE kernels ({@link MoeOpener}, wired in by the provider so that this package does not
     * depend on {@code internal.moe}, which depends on it). Empty for a one-PE communicator inside a
     * larger job (the portable MoE serves it).
     */
    @Override public Optional<MoeBuffer> nativeMoe(MoeConfig config) {
        ensureOpen();
        if (solo || moeOpener == null) return Optional.empty();
        return Optional.of(moeOpener.open(this, config));
    }

    /** Opens this communicator's native MoE buffers: {@code internal.moe}'s kernels. */
    public interface MoeOpener {
        MoeBuffer open(NvshmemCommunicator comm, MoeConfig config);
    }

    /** Base address of the collectives' symmetric scratch, whose peer mappings say whether load/store reaches every PE. */
    public long scratchBase() { return scratch.base(); }

    /** {@code unicomm.nvshmem.moe.transport}: auto, loadstore or nvshmem. */
    public String moeTransport() { return moeTransport; }

    /** {@code unicomm.nvshmem.moe.sms} / {@code .ll.sms} as given (null: the default). */
    public String moeSms(boolean lowLatency) { return lowLatency ? moeLlSms : moeSms; }

    /** PEs of this process's job that share this GPU (MPS): the MoE kernels split its SMs between them. */
    public static int gpuSharers() { return gpuSharers; }

    NvshmemDevice deviceRuntime() { return device; }

    /**
     * The stream all MoE buffers of this communicator launch on. One stream, because their kernels
     * wait for their peers' blocks: kernels of two buffers running side by side could hold the SMs
     * the other needs. So MoE operations of all buffers run in issue order, as collectives do.
     */
    public synchronized long moeStream() {
        if (moeStream == 0) moeStream = NvOps.streamCreate();
        return moeStream;
    }

    @Override public void close() {
        lock.lock();
        try {
            if (!open) return;
            List<String> problems = new ArrayList<>();
            if (!broken) {
                run(problems, "quiet + barrier", () -> {
                    NvOps.quiet(ctrl);
                    teamBarrier(world.handle, ctrl);
                    await(ctrl, "closing: final barrier");
                });
            }
            if (broken) {
                // A peer died or a wait timed out: collective frees would hang, and GPU work may still be
                // spinning on our streams. Release nothing collective; the process should exit.
                LOG.log(Level.WARNING, "closing NVSHMEM communicator (rank {0}) after an abort/timeout: symmetric memory and streams are left to process exit", rank);
                open = false;
                synchronized (PROCESS) {
                    openCount--;
                    if (solo) soloOpen = false;
                }
                return;
            }
            // Collective releases in creation order: every PE made the same teams and buffers in the same order.
            for (NvshmemTeam t : new ArrayList<>(teams)) run(problems, "team", t::release);
            heap.releaseAll(problems);
            for (NvshmemStream s : new ArrayList<>(streams)) run(problems, "stream", s::close);
            for (NvshmemDeviceBuffer b : new ArrayList<>(deviceBuffers)) run(problems, "device buffer", b::close);
            run(problems, "scratch", () -> symFree(scratch.base()));
            run(problems, "bounce buffer", () -> {
                try {
                    NvOps.unregisterHost(pinned);
                } catch (RuntimeException e) {
                    // Registration is optional (see the constructor); nothing to undo then.
                }
                NvOps.pinnedFree(pinned);
                NvOps.devFree(staging);
            });
            run(problems, "streams", () -> {
                NvOps.streamDestroy(ctrl);
                NvOps.streamDestroy(poll);
                if (moeStream != 0) NvOps.streamDestroy(moeStream);
            });
            open = false;
            synchronized (PROCESS) {
                openCount--;
                if (solo) soloOpen = false;
                if (finalizeOnClose && openCount == 0) {
                    run(problems, "nvshmem_finalize", NvOps::finalizeNvshmem);
                    finalized = true;
                }
            }
            if (!problems.isEmpty())
                throw new CommException("closing the NVSHMEM communicator (rank " + rank + ") had errors: " + problems);
        } finally {
            lock.unlock();
        }
    }

    private static void run(List<String> problems, String what, Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            problems.add(what + ": " + e.getMessage());
        }
    }

    @Override public String toString() {
        return "NvshmemCommunicator[rank " + rank + "/" + size + ", " + kind + (open ? "" : ", closed") + "]";
    }
}
