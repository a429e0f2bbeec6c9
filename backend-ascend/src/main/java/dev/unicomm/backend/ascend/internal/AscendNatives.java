package dev.unicomm.backend.ascend.internal;

import dev.unicomm.api.CommTimeoutException;
import dev.unicomm.api.NativeCallException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The backend's only door to native code: loads the JNI shim lazily, binds the ACL runtime and
 * Ascend SHMEM libraries by path, and turns every nonzero ACL / aclshmem status into a
 * {@link NativeCallException} naming the vendor function and the code. Callers validate
 * arguments first: what reaches these methods is passed through unchanged.
 */
public final class AscendNatives {
    private AscendNatives() {}

    /** ACL status of a stream or device synchronization that ran out of time. */
    public static final int ACL_STREAM_SYNC_TIMEOUT = 507046;
    /** ACL_ERROR_RT_MEMORY_ALLOCATION. */
    public static final int ACL_MEMORY_ALLOCATION = 207001;

    /** aclrtMemcpyKind. */
    public enum CopyKind {
        HOST_TO_HOST,
        HOST_TO_DEVICE,
        DEVICE_TO_HOST,
        DEVICE_TO_DEVICE
    }

    /** Outcome of binding the vendor libraries. */
    public enum LoadStatus {
        OK,
        JNI_UNAVAILABLE,
        ACL_MISSING,
        SHMEM_MISSING,
        SYMBOLS_MISSING,
        CONFLICT
    }

    /** Result of {@link #load}: the status and the loader's message (dlerror text, missing symbols). */
    public record LoadResult(LoadStatus status, String message) {}

    /** The NPU of the open communicator, or -1: ACL contexts are per thread, so each calling thread binds it once. */
    private static volatile int activeDevice = -1;

    private static final ThreadLocal<int[]> BOUND = ThreadLocal.withInitial(() -> new int[] {-1});

    /**
     * Makes {@code device} the NPU of every thread that calls into ACL / Ascend SHMEM from now on
     * ({@code aclrtSetDevice} in each new calling thread, as ACL requires); -1 stops binding.
     */
    public static void activate(int device) {
        activeDevice = device;
        BOUND.get()[0] = device; // the opening thread has just called aclrtSetDevice
    }

    /** Binds the calling thread to the active NPU if it is not yet. */
    private static void bound() {
        int d = activeDevice;
        if (d < 0) return;
        int[] b = BOUND.get();
        if (b[0] != d) {
            acl("aclrtSetDevice", AscendShim.uca_acl_set_device(d));
            b[0] = d;
        }
    }

    /** Loads the JNI shim once per process, on first use; keeps why it could not load on this platform. */
    private static final class Jni {
        static final Throwable FAILURE = load();

        private static Throwable load() {
            try {
                Class.forName(AscendShim.class.getName(), true, AscendShim.class.getClassLoader());
                return null;
            } catch (Throwable t) {
                return t instanceof ExceptionInInitializerError e && e.getCause() != null ? e.getCause() : t;
            }
        }
    }

    /** Why the JNI shim could not load, or {@code null}. */
    public static Throwable jniFailure() {
        return Jni.FAILURE;
    }

    /**
     * dlopens the ACL runtime and the Ascend SHMEM library and resolves the functions unicomm
     * uses. Never throws. Binding is per process: once bound, other paths are probed and reported
     * as {@link LoadStatus#CONFLICT}, never rebound.
     */
    public static LoadResult load(String aclLibrary, String shmemLibrary) {
        if (jniFailure() != null) return new LoadResult(LoadStatus.JNI_UNAVAILABLE, String.valueOf(jniFailure()));
        int rc = AscendShim.uca_load(aclLibrary, shmemLibrary);
        String msg = text((b, n) -> AscendShim.uca_message(b, n));
        LoadStatus s =
                switch (rc) {
                    case AscendShim.UCA_LOAD_OK -> LoadStatus.OK;
                    case AscendShim.UCA_LOAD_ACL_MISSING -> LoadStatus.ACL_MISSING;
                    case AscendShim.UCA_LOAD_SHMEM_MISSING -> LoadStatus.SHMEM_MISSING;
                    case AscendShim.UCA_LOAD_SYMBOLS_MISSING -> LoadStatus.SYMBOLS_MISSING;
                    default -> LoadStatus.CONFLICT;
                };
        return new LoadResult(s, msg);
    }

    /** Whether the bound library has the host-side heap functions (aclshmemx_align / aclshmemx_free). */
    public static boolean hasHostHeap() {
        return AscendShim.uca_has_host_heap() != 0;
    }

    // ---- ACL runtime ------------------------------------------------------------------------------

    public static void aclInit() {
        acl("aclInit", AscendShim.uca_acl_init());
    }

    public static int deviceCount() {
        int[] n = new int[1];
        acl("aclrtGetDeviceCount", AscendShim.uca_acl_device_count(n));
        return n[0];
    }

    public static void setDevice(int device) {
        acl("aclrtSetDevice", AscendShim.uca_acl_set_device(device));
    }

    public static void resetDevice(int device) {
        bound();
        acl("aclrtResetDevice", AscendShim.uca_acl_reset_device(device));
    }

    public static long malloc(long bytes) {
        bound();
        long[] p = new long[1];
        acl("aclrtMalloc", AscendShim.uca_acl_malloc(p, bytes));
        return p[0];
    }

    public static void free(long ptr) {
        bound();
        acl("aclrtFree", AscendShim.uca_acl_free(ptr));
    }

    public static void memcpy(long dst, long src, long bytes, CopyKind kind) {
        bound();
        acl("aclrtMemcpy", AscendShim.uca_acl_memcpy(dst, src, bytes, kind.ordinal()));
    }

    public static void memcpyAsync(long dst, long src, long bytes, CopyKind kind, long stream) {
        bound();
        acl("aclrtMemcpyAsync", AscendShim.uca_acl_memcpy_async(dst, src, bytes, kind.ordinal(), stream));
    }

    public static void memset(long dst, int value, long bytes) {
        bound();
        acl("aclrtMemset", AscendShim.uca_acl_memset(dst, value, bytes));
    }

    public static void memsetAsync(long dst, int value, long bytes, long stream) {
        bound();
        acl("aclrtMemsetAsync", AscendShim.uca_acl_memset_async(dst, value, bytes, stream));
    }

    public static long createStream() {
        bound();
        long[] s = new long[1];
        acl("aclrtCreateStream", AscendShim.uca_acl_create_stream(s));
        return s[0];
    }

    public static void destroyStream(long stream) {
        bound();
        acl("aclrtDestroyStream", AscendShim.uca_acl_destroy_stream(stream));
    }

    /**
     * aclrtSynchronizeStreamWithTimeout; a timeout (whose work ACL discards) becomes
     * {@link CommTimeoutException} naming {@code what}.
     */
    public static void syncStream(long stream, Duration timeout, String what) {
        bound();
        int rc = AscendShim.uca_acl_sync_stream(stream, millis(timeout));
        if (rc == ACL_STREAM_SYNC_TIMEOUT)
            throw new CommTimeoutException(what + " (aclrtSynchronizeStreamWithTimeout)", timeout);
        acl("aclrtSynchronizeStreamWithTimeout", rc);
    }

    /** aclrtStreamQuery: whether every task enqueued on {@code stream} has finished. Does not wait. */
    public static boolean streamDone(long stream) {
        bound();
        int[] done = new int[1];
        acl("aclrtStreamQuery", AscendShim.uca_acl_query_stream(stream, done));
        return done[0] != 0;
    }

    /**
     * Drops what is still queued or running on {@code stream}: ACL discards a stream's work when a
     * synchronization with timeout expires, so a 1 ms one does it. Used after a timeout or an abort.
     */
    public static void discardStream(long stream) {
        int rc = AscendShim.uca_acl_sync_stream(stream, 1);
        if (rc != ACL_STREAM_SYNC_TIMEOUT) acl("aclrtSynchronizeStreamWithTimeout", rc);
    }

    /** aclrtSynchronizeDeviceWithTimeout, timeouts as in {@link #syncStream}. */
    public static void syncDevice(Duration timeout, String what) {
        bound();
        int rc = AscendShim.uca_acl_sync_device(millis(timeout));
        if (rc == ACL_STREAM_SYNC_TIMEOUT)
            throw new CommTimeoutException(what + " (aclrtSynchronizeDeviceWithTimeout)", timeout);
        acl("aclrtSynchronizeDeviceWithTimeout", rc);
    }

    // ---- Ascend SHMEM control plane --------------------------------------------------------------

    public static void setConfStoreTls(boolean enable, String tlsInfo) {
        bound();
        shmem("aclshmemx_set_conf_store_tls", AscendShim.uca_shm_set_tls(enable ? 1 : 0, tlsInfo));
    }

    public static void setConfigStoreTlsKey(byte[] privateKey, byte[] password) {
        bound();
        byte[] pk = privateKey.length == 0 ? null : privateKey;
        byte[] pw = password.length == 0 ? null : password;
        shmem(
                "aclshmemx_set_config_store_tls_key",
                AscendShim.uca_shm_set_tls_key(pk, privateKey.length, pw, password.length));
    }

    /** sizeof(aclshmemx_uniqueid_t) as this binding declares it. */
    public static int uniqueIdSize() {
        return AscendShim.uca_shm_uid_size();
    }

    public static byte[] uniqueId() {
        bound();
        byte[] uid = new byte[uniqueIdSize()];
        shmem("aclshmemx_get_uniqueid", AscendShim.uca_shm_get_uid(uid, uid.length));
        return uid;
    }

    public static void setAttrUniqueIdArgs(int pe, int npes, long heapBytes, byte[] uid) {
        bound();
        shmem(
                "aclshmemx_set_attr_uniqueid_args",
                AscendShim.uca_shm_set_attr_uid(pe, npes, heapBytes, uid, uid.length));
    }

    public static void initAttr(int timeoutSeconds) {
        bound();
        shmem("aclshmemx_init_attr", AscendShim.uca_shm_init_attr(timeoutSeconds));
    }

    public static void shmemFinalize() {
        bound();
        shmem("aclshmem_finalize", AscendShim.uca_shm_finalize());
    }

    public static int myPe() {
        bound();
        return AscendShim.uca_shm_my_pe();
    }

    public static int nPes() {
        bound();
        return AscendShim.uca_shm_n_pes();
    }

    /** aclshmem_align (device heap) or aclshmemx_align(HOST_SIDE); 0 where the library returned NULL. */
    public static long align(long alignment, long bytes, boolean hostSide) {
        bound();
        return AscendShim.uca_shm_align(alignment, bytes, hostSide ? 1 : 0);
    }

    public static void free(long ptr, boolean hostSide) {
        bound();
        AscendShim.uca_shm_free(ptr, hostSide ? 1 : 0);
    }

    /** aclshmem_ptr; 0 where PE {@code pe}'s copy is not reachable by load/store from here. */
    public static long ptr(long local, int pe) {
        bound();
        return AscendShim.uca_shm_ptr(local, pe);
    }

    // ---- Ascend SHMEM data plane (void in the vendor API: nothing to check) ---------------------

    public static void put(long dst, long src, long bytes, int pe, boolean nbi) {
        bound();
        AscendShim.uca_shm_put(dst, src, bytes, pe, nbi ? 1 : 0);
    }

    public static void get(long dst, long src, long bytes, int pe, boolean nbi) {
        bound();
        AscendShim.uca_shm_get(dst, src, bytes, pe, nbi ? 1 : 0);
    }

    public static void putSignal(long dst, long src, long bytes, long sig, int value, int op, int pe, boolean nbi) {
        bound();
        AscendShim.uca_shm_put_signal(dst, src, bytes, sig, value, op, pe, nbi ? 1 : 0);
    }

    public static void putOnStream(long dst, long src, long bytes, int pe, long stream) {
        bound();
        AscendShim.uca_shm_put_on_stream(dst, src, bytes, pe, stream);
    }

    public static void getOnStream(long dst, long src, long bytes, int pe, long stream) {
        bound();
        AscendShim.uca_shm_get_on_stream(dst, src, bytes, pe, stream);
    }

    public static void signalOpOnStream(long sig, int value, int op, int pe, long stream) {
        bound();
        AscendShim.uca_shm_signal_op_on_stream(sig, value, op, pe, stream);
    }

    public static void signalWaitOnStream(long sig, int cmp, int value, long stream) {
        bound();
        AscendShim.uca_shm_signal_wait_on_stream(sig, cmp, value, stream);
    }

    public static void quietOnStream(long stream) {
        bound();
        AscendShim.uca_shm_quiet_on_stream(stream);
    }

    public static void barrierOnStream(int team, long stream) {
        bound();
        AscendShim.uca_shm_barrier_on_stream(team, stream);
    }

    // ---- teams -----------------------------------------------------------------------------------

    public static int splitStrided(int parent, int start, int stride, int size) {
        bound();
        int[] out = new int[1];
        shmem("aclshmem_team_split_strided", AscendShim.uca_team_split_strided(parent, start, stride, size, out));
        return out[0];
    }

    /** Returns {x team, y team}. */
    public static int[] split2d(int parent, int xRange) {
        bound();
        int[] out = new int[2];
        shmem("aclshmem_team_split_2d", AscendShim.uca_team_split_2d(parent, xRange, out));
        return out;
    }

    public static int translatePe(int srcTeam, int pe, int dstTeam) {
        bound();
        return AscendShim.uca_team_translate(srcTeam, pe, dstTeam);
    }

    public static int teamMyPe(int team) {
        bound();
        return AscendShim.uca_team_my_pe(team);
    }

    public static int teamNPes(int team) {
        bound();
        return AscendShim.uca_team_n_pes(team);
    }

    public static void teamDestroy(int team) {
        bound();
        AscendShim.uca_team_destroy(team);
    }

    // ---- helpers ---------------------------------------------------------------------------------

    private interface TextSource {
        int copy(byte[] buf, int len);
    }

    private static String text(TextSource source) {
        byte[] buf = new byte[512];
        int n = source.copy(buf, buf.length);
        if (n >= buf.length) {
            buf = new byte[n + 1];
            n = source.copy(buf, buf.length);
        }
        return new String(buf, 0, Math.min(n, buf.length - 1), StandardCharsets.UTF_8);
    }

    private static void acl(String call, int rc) {
        if (rc == 0) return;
        String recent = text((b, n) -> AscendShim.uca_acl_recent_error(b, n));
        throw new NativeCallException(call, rc, ErrorCodes.acl(rc) + (recent.isBlank() ? "" : " - " + recent.strip()));
    }

    private static void shmem(String call, int rc) {
        if (rc != 0) throw new NativeCallException(call, rc, ErrorCodes.shmem(rc));
    }

    private static int millis(Duration d) {
        long ms = d.toMillis();
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, ms));
    }
}
