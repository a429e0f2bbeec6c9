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
import dev.unicomm.api.SymmetricHeap;
import dev.unicomm.api.Team;
import dev.unicomm.spi.BackendCommunicator;
import dev.unicomm.spi.BackendContext;
import dev.unicomm.spi.CallAgreement;
import dev.unicomm.spi.Store;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One PE of an NVSHMEM job, over this process's NVSHMEM runtime ({@link NvshmemProcess}).
 * {@link #close()} releases everything this communicator made but keeps NVSHMEM initialized so
 * that a later {@code open} with the same rank and size reuses it, unless
 * {@code unicomm.nvshmem.finalize=true} asks for {@code nvshmem_finalize} at close. A one-PE
 * communicator opened in a process that is a PE of a larger job ("solo") runs on the same runtime:
 * its PE 0 is this NVSHMEM PE, its buffers come from a symmetric pool reserved at init, its teams
 * have one member and its collectives are local copies.
 *
 * <p>Host-issued operations (blocking RMA, atomics, collectives, copies) run on one internal
 * non-blocking CUDA stream ({@link HostStaging}), in issue order, under {@link #lock}, and every
 * wait for it is bounded by the communicator's timeout.
 */
public final class NvshmemCommunicator implements BackendCommunicator, MoeHost, WatchedCall.Job {
    private static final System.Logger LOG = System.getLogger("dev.unicomm.backend.nvshmem");

    final int rank, size, deviceOrdinal;
    /** A one-PE communicator over the process's NVSHMEM runtime of a larger job: PE 0 is NVSHMEM PE {@code initRank}. */
    final boolean solo;

    final MemoryKind kind;
    final Duration timeout;
    private final NvshmemSettings settings;
    private final Store store;
    /** Set once a wait saw the job aborted: GPU work may be stuck on a dead peer, so close skips collective steps. */
    private volatile boolean broken;
    /** Held by every host-issued operation: they share the internal stream and the staging buffers. */
    final ReentrantLock lock = new ReentrantLock();

    final HostStaging io;
    final SymmetricScratch scratch;
    private volatile MoeHost.Opener moeOpener;
    final NvshmemCallAgreement agreement = new NvshmemCallAgreement(this);
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

    private NvshmemCommunicator(BackendContext ctx, int deviceOrdinal, long heapCapacity, boolean solo) {
        this.settings = NvshmemSettings.of(ctx.config(), solo); // every setting checked before native work
        this.solo = solo;
        this.rank = ctx.rank();
        this.size = ctx.size();
        this.deviceOrdinal = deviceOrdinal;
        this.kind = MemoryKind.cuda(deviceOrdinal);
        this.timeout = settings.timeout();
        this.store = ctx.store();
        this.heapCapacity = heapCapacity;
        this.io = new HostStaging(size, settings.bounceBytes());
        long probeLen =
                SymmetricScratch.layout(0, size, settings.scratchBytes()).totalBytes();
        long base;
        if (solo) {
            base = NvshmemProcess.soloAllocate(probeLen, NvshmemProcess.HEAP_BASE_ALIGNMENT);
            if (base == 0) throw new CommException("the one-PE pool holds no room for the communicator's scratch");
        } else {
            base = NvOps.symAlloc(probeLen, NvshmemProcess.HEAP_BASE_ALIGNMENT);
        }
        this.scratch = SymmetricScratch.layout(base, size, settings.scratchBytes());
        this.heap = new NvshmemHeap(this, solo ? base : NvshmemProcess.heapBase(base));
        this.world = new NvshmemTeam(this, solo ? NvshmemTeam.SELF : NvOps.TEAM_WORLD, identity(size), false);
        this.rma = new NvshmemRma(this, null);
        this.device = new NvshmemDevice(this);
        this.collectives = new NvshmemCollectives(this);
    }

    /** As {@link #open(BackendContext, int)}, with the native MoE kernels behind {@link #nativeMoe}. */
    public static NvshmemCommunicator open(BackendContext ctx, int deviceCount, MoeHost.Opener moe) {
        NvshmemCommunicator c = open(ctx, deviceCount);
        c.moeOpener = moe;
        return c;
    }

    /** Opens this PE (collective over the job); see {@link NvshmemProcess#open} for which opens may share a process. */
    public static NvshmemCommunicator open(BackendContext ctx, int deviceCount) {
        var config = ctx.config();
        int device =
                NvshmemProcess.chooseDevice(config.property("nvshmem.device", null), config.localRank(), deviceCount);
        return NvshmemProcess.open(ctx, device, (d, capacity, solo) -> new NvshmemCommunicator(ctx, d, capacity, solo));
    }

    private static int[] identity(int n) {
        int[] r = new int[n];
        for (int i = 0; i < n; i++) r[i] = i;
        return r;
    }

    @Override
    public void ensureOpen() {
        if (!open) throw new IllegalStateException("NVSHMEM communicator (rank " + rank + ") is closed");
    }

    boolean isOpen() {
        return open;
    }

    long heapCapacity() {
        return heapCapacity;
    }

    /**
     * Waits until {@code stream} has finished its work, at most the communicator's timeout. Spins
     * briefly (small operations finish within microseconds), then backs off.
     */
    @Override
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
                throw new CommTimeoutException(
                        what + " (CUDA stream 0x" + Long.toHexString(stream) + " still busy)", timeout);
            }
            if (waited < 200_000) {
                Thread.onSpinWait();
            } else {
                LockSupport.parkNanos(park);
                park = Math.min(park * 2, 1_000_000);
            }
        }
    }

    /** The NVSHMEM PE behind this communicator's PE {@code pe}. */
    int npe(int pe) {
        return solo ? NvshmemProcess.initRank() : pe;
    }

    /** Enqueues a barrier over team {@code handle}; on a one-PE team there is nobody to wait for: a quiet. */
    void teamBarrier(int handle, long stream) {
        if (handle == NvshmemTeam.SELF) NvOps.quiet(stream);
        else NvOps.barrier(handle, stream);
    }

    /** NVSHMEM's world team (MoE buffers exist only on multi-PE communicators). */
    @Override
    public void barrierAll(long stream) {
        teamBarrier(NvOps.TEAM_WORLD, stream);
    }

    /**
     * Gives scratch or buffer memory back: to the one-PE pool, or to NVSHMEM (collective). After an
     * abort nvshmem_free would wait forever for the dead PE in its barrier: the memory is left to
     * process exit instead (semantics 7.2: survivors can still close).
     */
    void symFree(long addr) {
        if (solo) NvshmemProcess.soloFree(addr);
        else if (!aborted())
            WatchedCall.run(this, "nvshmem_free", () -> {
                NvOps.symFree(addr);
                return null;
            });
    }

    /** Whether the job was aborted or a wait timed out (marks this communicator broken); never throws. */
    @Override
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
    @Override
    public void markBroken() {
        broken = true;
    }

    /** Throws CommAbortedException if the job was aborted (a peer died); marks this communicator broken. */
    @Override
    public void checkHealthy() {
        try {
            store.checkHealthy();
        } catch (RuntimeException e) {
            broken = true;
            throw e;
        }
    }

    /**
     * The device address of local memory {@code m} at {@code offset} for an operation that needs
     * device memory of this PE's GPU; host memory or another device's memory is refused.
     */
    @Override
    public long deviceAddress(String what, Memory m, long offset) {
        MemoryKind k = m.kind();
        if (k.isHost())
            throw new IllegalArgumentException(
                    what + ": needs device memory on " + kind + " but got host memory; "
                            + "stream-ordered operations cannot read or write host memory: copy it to device memory first (DeviceRuntime.allocate + copy)");
        if (!k.equals(kind))
            throw new IllegalArgumentException(what + ": memory on " + k + " but this PE drives " + kind);
        return m.address() + offset;
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
    public Duration timeout() {
        return timeout;
    }

    @Override
    public MemoryKind kind() {
        return kind;
    }

    @Override
    public NvshmemSettings settings() {
        return settings;
    }

    @Override
    public int gpuSharers() {
        return NvshmemProcess.gpuSharers();
    }

    @Override
    public SymmetricHeap heap() {
        return heap;
    }

    @Override
    public Rma rma() {
        return rma;
    }

    @Override
    public Team world() {
        return world;
    }

    @Override
    public void barrier() {
        ensureOpen();
        world.barrier();
    }

    @Override
    public boolean acceptsLocal(MemoryKind k) {
        return k.isHost() || k.equals(kind);
    }

    /** NVSHMEM's team collectives; empty in limited MPG mode, where calling them would end the process. */
    @Override
    public Optional<Collectives> nativeCollectives() {
        return NvshmemProcess.noCollectives() == null ? Optional.of(collectives) : Optional.empty();
    }

    @Override
    public Optional<DeviceRuntime> device() {
        return Optional.of(device);
    }

    /** Collectives, heap and team calls agree across members (puts and barriers); none on a one-PE communicator. */
    @Override
    public Optional<CallAgreement> callAgreement() {
        return solo || size == 1 ? Optional.empty() : Optional.of(agreement);
    }

    /**
     * The CUDA MoE kernels ({@link MoeHost.Opener}, wired in by the provider so that this package does not
     * depend on {@code internal.moe}, which depends on it). Empty for a one-PE communicator inside a
     * larger job (the portable MoE serves it).
     */
    @Override
    public Optional<MoeBuffer> nativeMoe(MoeConfig config) {
        ensureOpen();
        if (solo || moeOpener == null) return Optional.empty();
        return Optional.of(moeOpener.open(this, config));
    }

    @Override
    public long scratchBase() {
        return scratch.base();
    }

    NvshmemDevice deviceRuntime() {
        return device;
    }

    @Override
    public synchronized long moeStream() {
        if (moeStream == 0) moeStream = NvOps.streamCreate();
        return moeStream;
    }

    @Override
    public void close() {
        lock.lock();
        try {
            if (!open) return;
            List<String> problems = new ArrayList<>();
            if (!broken) {
                run(problems, "quiet + barrier", () -> {
                    NvOps.quiet(io.ctrl);
                    teamBarrier(world.handle, io.ctrl);
                    await(io.ctrl, "closing: final barrier");
                });
            }
            if (broken) {
                // A peer died or a wait timed out: collective frees would hang, and GPU work may still be
                // spinning on our streams. Release nothing collective; the process should exit.
                LOG.log(
                        Level.WARNING,
                        "closing NVSHMEM communicator (rank {0}) after an abort/timeout: symmetric memory and streams are left to process exit",
                        rank);
                open = false;
                NvshmemProcess.closed(solo, true, false, problems);
                return;
            }
            // Collective releases in creation order: every PE made the same teams and buffers in the same order.
            for (NvshmemTeam t : new ArrayList<>(teams)) run(problems, "team", t::release);
            heap.releaseAll(problems);
            for (NvshmemStream s : new ArrayList<>(streams)) run(problems, "stream", s::close);
            for (NvshmemDeviceBuffer b : new ArrayList<>(deviceBuffers)) run(problems, "device buffer", b::close);
            run(problems, "scratch", () -> symFree(scratch.base()));
            run(problems, "bounce buffer", io::freeBuffers);
            run(problems, "streams", () -> {
                io.destroyStreams();
                if (moeStream != 0) NvOps.streamDestroy(moeStream);
            });
            open = false;
            NvshmemProcess.closed(solo, false, settings.finalizeOnClose(), problems);
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

    @Override
    public String toString() {
        return "NvshmemCommunicator[rank " + rank + "/" + size + ", " + kind + (open ? "" : ", closed") + "]";
    }
}
