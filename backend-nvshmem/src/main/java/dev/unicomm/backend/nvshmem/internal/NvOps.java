package dev.unicomm.backend.nvshmem.internal;

import dev.unicomm.api.NativeCallException;
import org.bytedeco.javacpp.BytePointer;

/**
 * The backend's only door to native code: one static method per operation of the shim, taking and
 * returning primitives, turning error codes into {@link NativeCallException} (the CUDA or NVSHMEM
 * call, the error name and code). Arguments are validated by the caller before they get here.
 */
public final class NvOps {
    /** {@code stream} value meaning "host-initiated" rather than a CUDA stream. */
    public static final long HOST = -1;

    static final int OK = 0, NOT_READY = 1, ERR_CUDA = 2, ERR_NVSHMEM = 3, ERR_NOT_LOADED = 4, ERR_ARGUMENT = 5;

    /** Atomic operation codes of {@link #atomic}. */
    public static final int AMO_FETCH = 0, AMO_SET = 1, AMO_FETCH_ADD = 2, AMO_ADD = 3, AMO_CSWAP = 4, AMO_SWAP = 5;
    /** Element type codes of {@link #reduce}. */
    public static final int DT_INT32 = 0, DT_INT64 = 1, DT_FP32 = 2, DT_FP16 = 3, DT_BF16 = 4;
    /** Reduction codes of {@link #reduce}. */
    public static final int OP_SUM = 0, OP_MIN = 1, OP_MAX = 2, OP_PROD = 3;
    /** NVSHMEM_TEAM_WORLD and NVSHMEM_TEAM_INVALID. */
    public static final int TEAM_WORLD = 0, TEAM_INVALID = -1;
    /** Size of nvshmemx_uniqueid_t. */
    public static final int UNIQUE_ID_BYTES = 128;

    private NvOps() {}

    static void check(int rc) {
        if (rc != OK) throw failure(rc);
    }

    private static NativeCallException failure(int rc) {
        String call = text(NvshmemShim.ucn_error_call());
        String name = text(NvshmemShim.ucn_error_name());
        long code = NvshmemShim.ucn_error_code();
        String kind =
                switch (rc) {
                    case ERR_CUDA -> "";
                    case ERR_NVSHMEM -> " [NVSHMEM]";
                    case ERR_NOT_LOADED -> " [the NVSHMEM ops library is not loaded]";
                    case ERR_ARGUMENT -> " [argument rejected natively]";
                    default -> " [shim status " + rc + "]";
                };
        return new NativeCallException(call, code, name + kind);
    }

    static String text(BytePointer p) {
        return p == null || p.isNull() ? "" : p.getString();
    }

    public static void setenv(String name, String value, boolean overwrite) {
        NvshmemShim.ucn_setenv(name, value, overwrite ? 1 : 0);
    }

    /** {device count, driver version}. */
    public static int[] cudaProbe() {
        int[] n = new int[1], v = new int[1];
        check(NvshmemShim.ucn_cuda_probe(n, v));
        return new int[] {n[0], v[0]};
    }

    public static byte[] uniqueId() {
        byte[] id = new byte[UNIQUE_ID_BYTES];
        check(NvshmemShim.ucn_get_uniqueid(id, id.length));
        return id;
    }

    public static void init(int rank, int nranks, byte[] uid, int device) {
        check(NvshmemShim.ucn_init(rank, nranks, uid, uid.length, device));
    }

    /** nvshmemx_init_status() values. */
    public static final int STATUS_LIMITED_MPG = 3, STATUS_FULL_MPG = 4;

    public static int initStatus() {
        int[] st = new int[1];
        check(NvshmemShim.ucn_init_status(st));
        return st[0];
    }

    public static void finalizeNvshmem() {
        check(NvshmemShim.ucn_finalize());
    }

    public static long symAlloc(long bytes, long alignment) {
        long[] out = new long[1];
        check(NvshmemShim.ucn_sym_alloc(bytes, alignment, out));
        return out[0];
    }

    public static void symFree(long ptr) {
        check(NvshmemShim.ucn_sym_free(ptr));
    }

    /** nvshmem_ptr: the peer's copy of {@code addr} in this process's address space, or 0. */
    public static long peerPtr(long addr, int pe) {
        long[] out = new long[1];
        check(NvshmemShim.ucn_peer_ptr(addr, pe, out));
        return out[0];
    }

    /** Start of this PE's symmetric heap (NVSHMEM's device state), from which buffer offsets count. */
    public static long heapBase() {
        long[] out = new long[1];
        check(NvshmemShim.ucn_heap_base(out));
        return out[0];
    }

    public static void registerHost(long addr, long bytes) {
        check(NvshmemShim.ucn_register_host(addr, bytes));
    }

    public static void unregisterHost(long addr) {
        check(NvshmemShim.ucn_unregister_host(addr));
    }

    public static long devAlloc(long bytes) {
        long[] out = new long[1];
        check(NvshmemShim.ucn_dev_alloc(bytes, out));
        return out[0];
    }

    public static void devFree(long ptr) {
        check(NvshmemShim.ucn_dev_free(ptr));
    }

    public static long pinnedAlloc(long bytes) {
        long[] out = new long[1];
        check(NvshmemShim.ucn_pinned_alloc(bytes, out));
        return out[0];
    }

    public static void pinnedFree(long ptr) {
        check(NvshmemShim.ucn_pinned_free(ptr));
    }

    public static void copyAsync(long dst, long src, long bytes, long stream) {
        check(NvshmemShim.ucn_copy_async(dst, src, bytes, stream));
    }

    public static void fillAsync(long dst, int value, long bytes, long stream) {
        check(NvshmemShim.ucn_fill_async(dst, value, bytes, stream));
    }

    public static long streamCreate() {
        long[] out = new long[1];
        check(NvshmemShim.ucn_stream_create(out));
        return out[0];
    }

    public static void streamDestroy(long stream) {
        check(NvshmemShim.ucn_stream_destroy(stream));
    }

    /** Whether all work on {@code stream} is done (cudaStreamQuery). */
    public static boolean streamDone(long stream) {
        int rc = NvshmemShim.ucn_stream_query(stream);
        if (rc == NOT_READY) return false;
        check(rc);
        return true;
    }

    public static void deviceSync() {
        check(NvshmemShim.ucn_device_sync());
    }

    public static void put(long dst, long src, long bytes, int pe, boolean nbi, long stream) {
        check(NvshmemShim.ucn_put(dst, src, bytes, pe, nbi ? 1 : 0, stream));
    }

    public static void get(long dst, long src, long bytes, int pe, boolean nbi, long stream) {
        check(NvshmemShim.ucn_get(dst, src, bytes, pe, nbi ? 1 : 0, stream));
    }

    public static void putSignal(
            long dst, long src, long bytes, long sig, long value, boolean add, int pe, boolean nbi, long stream) {
        check(NvshmemShim.ucn_put_signal(dst, src, bytes, sig, value, add ? 1 : 0, pe, nbi ? 1 : 0, stream));
    }

    /** {@code cmp}: 0..5 = EQ, NE, GT, GE, LT, LE. */
    public static void signalWait(long sig, int cmp, long value, long stream) {
        check(NvshmemShim.ucn_signal_wait(sig, cmp, value, stream));
    }

    public static void quiet(long stream) {
        check(NvshmemShim.ucn_quiet(stream));
    }

    public static void barrier(int team, long stream) {
        check(NvshmemShim.ucn_barrier(team, stream));
    }

    /** Enqueues one 64-bit atomic on {@code stream}; the old value goes to {@code result} (0: nowhere). */
    public static void atomic(int op, long addr, long a, long b, int pe, long result, long stream) {
        check(NvshmemShim.ucn_atomic(op, addr, a, b, pe, result, stream));
    }

    public static int teamSplitStrided(int parent, int start, int stride, int size) {
        int[] out = new int[1];
        check(NvshmemShim.ucn_team_split_strided(parent, start, stride, size, out));
        return out[0];
    }

    /** {x team, y team}. */
    public static int[] teamSplit2d(int parent, int xrange) {
        int[] x = new int[1], y = new int[1];
        check(NvshmemShim.ucn_team_split_2d(parent, xrange, x, y));
        return new int[] {x[0], y[0]};
    }

    /** {my PE in team, team size}. */
    public static int[] teamInfo(int team) {
        int[] me = new int[1], n = new int[1];
        check(NvshmemShim.ucn_team_info(team, me, n));
        return new int[] {me[0], n[0]};
    }

    public static void teamDestroy(int team) {
        check(NvshmemShim.ucn_team_destroy(team));
    }

    public static void broadcast(int team, long dst, long src, long bytes, int root, long stream) {
        check(NvshmemShim.ucn_broadcast(team, dst, src, bytes, root, stream));
    }

    public static void fcollect(int team, long dst, long src, long bytes, long stream) {
        check(NvshmemShim.ucn_fcollect(team, dst, src, bytes, stream));
    }

    public static void alltoall(int team, long dst, long src, long bytes, long stream) {
        check(NvshmemShim.ucn_alltoall(team, dst, src, bytes, stream));
    }

    public static void reduce(
            int team, int dtype, int op, boolean scatter, long dst, long src, long count, long stream) {
        check(NvshmemShim.ucn_reduce(team, dtype, op, scatter ? 1 : 0, dst, src, count, stream));
    }

    // ------------------------------------------------------------------------------ CUDA graphs

    /** Starts capturing {@code stream}'s work into a graph (calls of this thread only). */
    public static void graphBegin(long stream) {
        check(NvshmemShim.ucn_graph_begin(stream));
    }

    /** Ends the capture and instantiates the graph; returns the executable graph. */
    public static long graphEnd(long stream) {
        long[] out = new long[1];
        check(NvshmemShim.ucn_graph_end(stream, out));
        return out[0];
    }

    public static void graphLaunch(long exec, long stream) {
        check(NvshmemShim.ucn_graph_launch(exec, stream));
    }

    public static void graphDestroy(long exec) {
        check(NvshmemShim.ucn_graph_destroy(exec));
    }

    // ------------------------------------------------------------------ MoE kernels (ucn_moe.cuh)

    /** {SMs of this PE's device, most dynamic shared memory per block (opt-in)}. */
    public static long[] moeDeviceInfo() {
        int[] sms = new int[1];
        long[] smem = new long[1];
        check(NvshmemShim.ucn_moe_device_info(sms, smem));
        return new long[] {sms[0], smem[0]};
    }

    /**
     * Timing of the MoE kernels (CUDA events), process-wide: 0 off, 1 events as the host launches, 2 each timed
     * operation behind a short device wait and a barrier of all PEs (aligned starts).
     */
    public static void moeProfile(int mode) {
        if (mode < 0 || mode > 2) throw new IllegalArgumentException("MoE profile mode must be 0, 1 or 2, got " + mode);
        check(NvshmemShim.ucn_moe_profile(mode));
    }

    /**
     * Milliseconds of the last MoE operation's kernels: {first (count exchange or only kernel), data kernel or 0}
     * by CUDA events, then the kernel span by the device timer (first block start to last block end; 0: not marked).
     */
    public static float[] moeTimes() {
        float[] out = new float[3];
        check(NvshmemShim.ucn_moe_times(out));
        return out;
    }

    public static void moeLayout(long[] args) {
        check(NvshmemShim.ucn_moe_layout(args, args.length));
    }

    /** Count exchange (unless {@code cached}) and the data kernel of a normal dispatch. */
    public static void moeNormalDispatch(long[] args, boolean cached) {
        check(NvshmemShim.ucn_moe_normal_dispatch(args, args.length, cached ? 1 : 0));
    }

    public static void moeNormalCombine(long[] args) {
        check(NvshmemShim.ucn_moe_normal_combine(args, args.length));
    }

    public static void moeLowLatencyDispatch(long[] args) {
        check(NvshmemShim.ucn_moe_ll_dispatch(args, args.length));
    }

    public static void moeLowLatencyCombine(long[] args) {
        check(NvshmemShim.ucn_moe_ll_combine(args, args.length));
    }
}
