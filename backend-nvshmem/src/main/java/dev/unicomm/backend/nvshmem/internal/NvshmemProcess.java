package dev.unicomm.backend.nvshmem.internal;

import dev.unicomm.api.ByteSize;
import dev.unicomm.api.CommException;
import dev.unicomm.spi.BackendContext;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The NVSHMEM runtime of this process, shared by all its communicators. NVSHMEM allows one PE per
 * process and, in practice, one initialization: the first open initializes it (unique-id bootstrap
 * through the rendezvous store), later opens of the same job shape reuse it, and it is finalized
 * only when asked for ({@code unicomm.nvshmem.finalize=true}) and the last communicator closes.
 * Everything here is guarded by {@link #LOCK}.
 */
final class NvshmemProcess {
    private static final System.Logger LOG = System.getLogger("dev.unicomm.backend.nvshmem");
    static final Object LOCK = new Object();
    /** Offsets keep the alignment of what is allocated after the first buffer (up to 2 MiB). */
    static final long HEAP_BASE_ALIGNMENT = 2L << 20;
    /** Room in the one-PE pool for a one-PE communicator's own scratch. */
    private static final long SOLO_SCRATCH = 4L << 20;
    /** Symmetric heap NVSHMEM keeps for itself (team and collective work areas) on top of the user's. */
    private static final long RUNTIME_MARGIN = 32L << 20;

    private static int initRank = -1, initSize = -1, initDevice = -1, openCount;
    /** Reserved for one-PE communicators in a process that is a PE of a larger job (null otherwise). */
    private static SoloPool soloPool;

    private static boolean soloOpen;
    private static boolean finalized;
    /** Usable symmetric heap of the NVSHMEM runtime (what it was initialized with, less our margin). */
    private static long runtimeHeap;
    /** Where offsets count from: the start of NVSHMEM's symmetric heap (set once). */
    private static long heapBase;
    /** Why NVSHMEM's collectives cannot run here (limited MPG), or null when they can. */
    private static String noCollectives;
    /** PEs of this job on this PE's GPU (1 unless several share it). */
    private static int gpuSharers = 1;

    private NvshmemProcess() {}

    /** Makes one communicator: on {@code device}, with {@code heapCapacity} bytes, one-PE ("solo") or not. */
    interface Factory<C> {
        C make(int device, long heapCapacity, boolean solo);
    }

    /**
     * Joins this process's NVSHMEM job (initializing it the first time) and makes the communicator
     * under the lock; it counts as open only once {@code factory} returned. Several communicators of
     * the same job shape (rank, size) may be open at once; a different shape cannot: NVSHMEM runs one
     * job per process. A one-PE open in a process that is a PE of a larger job gets the solo pool.
     */
    static <C> C open(BackendContext ctx, int device, Factory<C> factory) {
        var config = ctx.config();
        synchronized (LOCK) {
            if (finalized)
                throw new CommException(
                        "NVSHMEM was finalized in this process (unicomm.nvshmem.finalize=true); it cannot be initialized again");
            if (initRank < 0) {
                initialize(ctx, device);
            } else if (ctx.size() == 1 && initSize > 1 && soloPool != null) {
                if (soloOpen)
                    throw new CommException(
                            "a one-PE NVSHMEM communicator is already open in this process; close it first");
                long capacity = Math.min(config.heapSize(), soloPool.size() - SOLO_SCRATCH);
                C c = factory.make(initDevice, capacity, true);
                soloOpen = true;
                openCount++;
                return c;
            } else if (initRank != ctx.rank() || initSize != ctx.size()) {
                throw new CommException(
                        "NVSHMEM is already initialized in this process as PE " + initRank + " of " + initSize
                                + "; it cannot also be PE " + ctx.rank() + " of " + ctx.size()
                                + ": NVSHMEM runs one job per process "
                                + "(open communicators of this process's job shape, or start another process)");
            } else {
                ctx.store().barrier("nvshmem/reopen");
            }
            long capacity = Math.min(config.heapSize(), runtimeHeap);
            C c = factory.make(device, capacity, false);
            openCount++;
            return c;
        }
    }

    /**
     * A communicator closed. After an abort ({@code broken}) nothing is finalized: the process should
     * exit. Otherwise the last close finalizes NVSHMEM when {@code finalizeOnClose} asks for it.
     */
    static void closed(boolean solo, boolean broken, boolean finalizeOnClose, List<String> problems) {
        synchronized (LOCK) {
            openCount--;
            if (solo) soloOpen = false;
            if (!broken && finalizeOnClose && openCount == 0) {
                try {
                    NvOps.finalizeNvshmem();
                } catch (RuntimeException e) {
                    problems.add("nvshmem_finalize: " + e.getMessage());
                }
                finalized = true;
            }
        }
    }

    static int chooseDevice(String configured, int localRank, int deviceCount) {
        if (configured != null && !configured.isBlank()) {
            int d;
            try {
                d = Integer.parseInt(configured.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        "unicomm.nvshmem.device must be a device ordinal, got '" + configured + "'");
            }
            if (d < 0 || d >= deviceCount)
                throw new IllegalArgumentException(
                        "unicomm.nvshmem.device=" + d + " but this process sees CUDA devices 0.." + (deviceCount - 1));
            return d;
        }
        return localRank % deviceCount;
    }

    /** Environment NVSHMEM reads at init, then the unique-id exchange and nvshmemx_init_attr. */
    private static void initialize(BackendContext ctx, int device) {
        // NVLink SHARP (multicast) can take GPUs out of service on shared hosts: off unless the user set it.
        NvOps.setenv("NVSHMEM_DISABLE_NVLS", "1", false);
        String userSize = System.getenv("NVSHMEM_SYMMETRIC_SIZE");
        long pool = ctx.size() > 1
                ? ByteSize.parse("unicomm.nvshmem.soloPoolBytes", ctx.config().property("nvshmem.soloPoolBytes", "64M"))
                        + SOLO_SCRATCH
                : 0;
        long total = ctx.config().heapSize() + RUNTIME_MARGIN + pool;
        if (userSize != null) {
            total = ByteSize.parse("NVSHMEM_SYMMETRIC_SIZE", userSize);
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
            throw new CommException("the NVSHMEM unique id from the store has " + uid.length + " bytes, expected "
                    + NvOps.UNIQUE_ID_BYTES);
        NvOps.init(ctx.rank(), ctx.size(), uid, device);
        runtimeHeap = Math.max(0, total - RUNTIME_MARGIN - pool);
        initDevice = device;
        if (pool > 0) soloPool = new SoloPool(NvOps.symAlloc(pool, HEAP_BASE_ALIGNMENT), pool); // collective, once
        if (NvOps.initStatus() == NvOps.STATUS_LIMITED_MPG) {
            noCollectives =
                    "NVSHMEM runs in limited MPG mode (several PEs share a GPU without MPS, or their CUDA_MPS_ACTIVE_THREAD_PERCENTAGE add up to more than 100): "
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
        ctx.store().set("nvshmem/gpu/" + ctx.rank(), me.getBytes(StandardCharsets.UTF_8));
        int sharers = 0;
        for (int r = 0; r < ctx.size(); r++)
            if (me.equals(new String(ctx.store().get("nvshmem/gpu/" + r), StandardCharsets.UTF_8))) sharers++;
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

    /**
     * Where offsets count from, fixed by the first multi-PE communicator: the start of NVSHMEM's heap,
     * so offsets are never negative and equal on every PE. (Not the first allocation: NVSHMEM may later
     * place a buffer below it, in room its own start-up used and gave back.)
     */
    static long heapBase(long firstBuffer) {
        synchronized (LOCK) {
            if (heapBase == 0) {
                long start = NvOps.heapBase();
                heapBase = start != 0 && start <= firstBuffer ? start : firstBuffer;
                if (heapBase != start)
                    LOG.log(
                            Level.WARNING,
                            "NVSHMEM reports its heap at 0x{0}, not below the first buffer at 0x{1}: offsets count from that buffer",
                            Long.toHexString(start),
                            Long.toHexString(firstBuffer));
            }
            return heapBase;
        }
    }

    /** The NVSHMEM PE of this process (a one-PE communicator's PE 0). */
    static int initRank() {
        return initRank;
    }

    static long soloAllocate(long bytes, long alignment) {
        return soloPool.allocate(bytes, alignment);
    }

    static void soloFree(long addr) {
        soloPool.free(addr);
    }

    /** Why NVSHMEM's collectives cannot run in this process, or null when they can. */
    static String noCollectives() {
        return noCollectives;
    }

    /** PEs of this process's job that share this GPU (MPS): the MoE kernels split its SMs between them. */
    static int gpuSharers() {
        return gpuSharers;
    }
}
