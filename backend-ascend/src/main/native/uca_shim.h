/*
 * unicomm's shim over Ascend SHMEM (aclshmem) and the ACL runtime.
 *
 * The shim links only libc/libdl: it dlopen()s the ACL runtime and the Ascend SHMEM library
 * when asked (uca_load), so the JNI library always loads and a missing vendor library comes
 * back as a message instead of an UnsatisfiedLinkError. Addresses cross the JNI boundary as
 * 64-bit integers; every function that wraps a vendor call returning a status returns that
 * status unchanged (0 = success), so Java can name the call and the code.
 */
#ifndef UCA_SHIM_H
#define UCA_SHIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- loading ---------------------------------------------------------------------------- */
/* Status codes of uca_load (the shim's own, not vendor codes). */
#define UCA_LOAD_OK 0
#define UCA_LOAD_ACL_MISSING 1      /* dlopen of the ACL runtime failed */
#define UCA_LOAD_SHMEM_MISSING 2    /* dlopen of the Ascend SHMEM library failed */
#define UCA_LOAD_SYMBOLS_MISSING 3  /* a library loaded but lacks functions we need */
#define UCA_LOAD_CONFLICT 4         /* this process is already bound to other library files */

/* Loads both libraries (idempotent for the same paths; other paths are probed and reported,
 * never rebound). Details: uca_message. */
int uca_load(const char *acl_path, const char *shmem_path);
/* Copies this thread's last shim message (load errors) into buf; returns its full length. */
int uca_message(signed char *buf, int len);
/* 1 if the optional host-side heap functions (aclshmemx_align/aclshmemx_free) exist. */
int uca_has_host_heap(void);

/* ---- ACL runtime -------------------------------------------------------------------------- */
int uca_acl_init(void);  /* aclInit(NULL); an already initialized ACL counts as success */
int uca_acl_device_count(int *count);
int uca_acl_set_device(int device);
int uca_acl_reset_device(int device);
int uca_acl_malloc(long long *ptr, long long bytes);
int uca_acl_free(long long ptr);
/* kind: 0 host->host, 1 host->device, 2 device->host, 3 device->device (aclrtMemcpyKind). */
int uca_acl_memcpy(long long dst, long long src, long long bytes, int kind);
int uca_acl_memcpy_async(long long dst, long long src, long long bytes, int kind, long long stream);
int uca_acl_memset(long long dst, int value, long long bytes);
int uca_acl_memset_async(long long dst, int value, long long bytes, long long stream);
int uca_acl_create_stream(long long *stream);
int uca_acl_destroy_stream(long long stream);
int uca_acl_sync_stream(long long stream, int timeout_ms);
/* aclrtStreamQuery: *done = 1 when every task on the stream has finished, else 0. */
int uca_acl_query_stream(long long stream, int *done);
int uca_acl_sync_device(int timeout_ms);
/* aclGetRecentErrMsg into buf (empty when the runtime has none); returns its full length. */
int uca_acl_recent_error(signed char *buf, int len);

/* ---- Ascend SHMEM: control plane ------------------------------------------------------------ */
int uca_shm_set_tls(int enable, const char *tls_info);
int uca_shm_set_tls_key(const signed char *pk, int pk_len, const signed char *pw, int pw_len);
int uca_shm_uid_size(void);
int uca_shm_get_uid(signed char *out, int len);
/* aclshmemx_set_attr_uniqueid_args into the shim's attribute block (kept until uca_shm_init_attr). */
int uca_shm_set_attr_uid(int pe, int npes, long long heap_bytes, const signed char *uid, int uid_len);
/* aclshmemx_init_attr(ACLSHMEMX_INIT_WITH_UNIQUEID) with the block above and these timeouts. */
int uca_shm_init_attr(int timeout_s);
int uca_shm_finalize(void);
int uca_shm_my_pe(void);
int uca_shm_n_pes(void);
/* host_side: 0 = device heap (aclshmem_align), 1 = host heap (aclshmemx_align HOST_SIDE). */
long long uca_shm_align(long long alignment, long long bytes, int host_side);
void uca_shm_free(long long ptr, int host_side);
long long uca_shm_ptr(long long ptr, int pe);

/* ---- Ascend SHMEM: data plane (the vendor functions return nothing) ------------------------- */
void uca_shm_put(long long dst, long long src, long long bytes, int pe, int nbi);
void uca_shm_get(long long dst, long long src, long long bytes, int pe, int nbi);
void uca_shm_put_signal(long long dst, long long src, long long bytes, long long sig, int value, int op,
                        int pe, int nbi);
void uca_shm_put_on_stream(long long dst, long long src, long long bytes, int pe, long long stream);
void uca_shm_get_on_stream(long long dst, long long src, long long bytes, int pe, long long stream);
void uca_shm_signal_op_on_stream(long long sig, int value, int op, int pe, long long stream);
void uca_shm_signal_wait_on_stream(long long sig, int cmp, int value, long long stream);
void uca_shm_quiet_on_stream(long long stream);
void uca_shm_barrier_on_stream(int team, long long stream);

/* ---- Ascend SHMEM: teams (aclshmem_team_t is an int; world = 0, invalid = -1) --------------- */
int uca_team_split_strided(int parent, int start, int stride, int size, int *out);
int uca_team_split_2d(int parent, int x_range, int *out_xy);
int uca_team_translate(int src_team, int pe, int dst_team);
int uca_team_my_pe(int team);
int uca_team_n_pes(int team);
void uca_team_destroy(int team);

#ifdef __cplusplus
}
#endif
#endif
