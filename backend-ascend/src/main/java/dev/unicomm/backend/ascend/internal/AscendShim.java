package dev.unicomm.backend.ascend.internal;

import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.annotation.Platform;

/**
 * JavaCPP binding of {@code ascend_shim.h}: one static native per shim function, same names.
 * Addresses are {@code long}; out-parameters are one-element arrays. Use {@link AscendNatives},
 * which loads this class lazily and turns status codes into exceptions.
 */
@Platform(include = "ascend_shim.h", link = "dl")
final class AscendShim {
    static {
        Loader.load();
    }

    private AscendShim() {}

    static native int uca_load(String aclPath, String shmemPath);
    static native int uca_message(byte[] buf, int len);
    static native int uca_has_host_heap();

    static native int uca_acl_init();
    static native int uca_acl_device_count(int[] count);
    static native int uca_acl_set_device(int device);
    static native int uca_acl_reset_device(int device);
    static native int uca_acl_malloc(long[] ptr, long bytes);
    static native int uca_acl_free(long ptr);
    static native int uca_acl_memcpy(long dst, long src, long bytes, int kind);
    static native int uca_acl_memcpy_async(long dst, long src, long bytes, int kind, long stream);
    static native int uca_acl_memset(long dst, int value, long bytes);
    static native int uca_acl_memset_async(long dst, int value, long bytes, long stream);
    static native int uca_acl_create_stream(long[] stream);
    static native int uca_acl_destroy_stream(long stream);
    static native int uca_acl_sync_stream(long stream, int timeoutMs);
    static native int uca_acl_query_stream(long stream, int[] done);
    static native int uca_acl_sync_device(int timeoutMs);
    static native int uca_acl_recent_error(byte[] buf, int len);

    static native int uca_shm_set_tls(int enable, String tlsInfo);
    static native int uca_shm_set_tls_key(byte[] pk, int pkLen, byte[] pw, int pwLen);
    static native int uca_shm_uid_size();
    static native int uca_shm_get_uid(byte[] out, int len);
    static native int uca_shm_set_attr_uid(int pe, int npes, long heapBytes, byte[] uid, int uidLen);
    static native int uca_shm_init_attr(int timeoutS);
    static native int uca_shm_finalize();
    static native int uca_shm_my_pe();
    static native int uca_shm_n_pes();
    static native long uca_shm_align(long alignment, long bytes, int hostSide);
    static native void uca_shm_free(long ptr, int hostSide);
    static native long uca_shm_ptr(long ptr, int pe);

    static native void uca_shm_put(long dst, long src, long bytes, int pe, int nbi);
    static native void uca_shm_get(long dst, long src, long bytes, int pe, int nbi);
    static native void uca_shm_put_signal(long dst, long src, long bytes, long sig, int value, int op, int pe, int nbi);
    static native void uca_shm_put_on_stream(long dst, long src, long bytes, int pe, long stream);
    static native void uca_shm_get_on_stream(long dst, long src, long bytes, int pe, long stream);
    static native void uca_shm_signal_op_on_stream(long sig, int value, int op, int pe, long stream);
    static native void uca_shm_signal_wait_on_stream(long sig, int cmp, int value, long stream);
    static native void uca_shm_quiet_on_stream(long stream);
    static native void uca_shm_barrier_on_stream(int team, long stream);

    static native int uca_team_split_strided(int parent, int start, int stride, int size, int[] out);
    static native int uca_team_split_2d(int parent, int xRange, int[] outXy);
    static native int uca_team_translate(int srcTeam, int pe, int dstTeam);
    static native int uca_team_my_pe(int team);
    static native int uca_team_n_pes(int team);
    static native void uca_team_destroy(int team);
}
