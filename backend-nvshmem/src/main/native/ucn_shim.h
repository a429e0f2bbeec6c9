/*
 * The JNI-facing C API of backend-nvshmem, parsed by JavaCPP into NvshmemShim. Implemented in
 * ucn_shim.c, which links only libc: it dlopens the NVSHMEM host library and our CUDA ops library
 * (libunicomm_nvshmem_ops.so) on request, so the JNI library itself loads on every Linux machine.
 * Each ucn_X forwards to ucn_ops_X of the ops library (see ucn_ops_list.h) and returns 0 or an error
 * code (ucn_codes.h); ucn_error_* describe the last failure of the calling thread.
 */
#ifndef UCN_SHIM_H
#define UCN_SHIM_H

#ifdef __cplusplus
extern "C" {
#endif

/* dlopen of the driver library libcuda.so.1: 0, or 1 with the reason in ucn_load_error(). */
int ucn_probe_driver(void);
/* Loads NVSHMEM's host library (path may be empty: use the loader's search path) and the ops library. */
int ucn_load(const char *nvshmem_host_path, const char *ops_path);
/* Whether ucn_load succeeded. */
int ucn_loaded(void);
/* Why the last ucn_probe_driver/ucn_load failed. */
const char *ucn_load_error(void);
/* setenv(3), so that NVSHMEM_* settings reach NVSHMEM, which reads the process environment. */
int ucn_setenv(const char *name, const char *value, int overwrite);
/* The failing call, its error name and code of this thread's last failed ucn_ operation. */
const char *ucn_error_call(void);
const char *ucn_error_name(void);
long long ucn_error_code(void);

int ucn_cuda_probe(int *device_count, int *driver_version);
int ucn_get_uniqueid(signed char *out, int capacity);
int ucn_init(int rank, int nranks, const signed char *uid, int uid_len, int device);
int ucn_finalize(void);
int ucn_init_status(int *status);
int ucn_sym_alloc(long long bytes, long long alignment, long long *out);
int ucn_sym_free(long long ptr);
int ucn_peer_ptr(long long addr, int pe, long long *out);
int ucn_heap_base(long long *out);
int ucn_register_host(long long addr, long long bytes);
int ucn_unregister_host(long long addr);
int ucn_dev_alloc(long long bytes, long long *out);
int ucn_dev_free(long long ptr);
int ucn_pinned_alloc(long long bytes, long long *out);
int ucn_pinned_free(long long ptr);
int ucn_copy_async(long long dst, long long src, long long bytes, long long stream);
int ucn_fill_async(long long dst, int value, long long bytes, long long stream);
int ucn_stream_create(long long *out);
int ucn_stream_destroy(long long stream);
int ucn_stream_query(long long stream);
int ucn_device_sync(void);
int ucn_put(long long dst, long long src, long long bytes, int pe, int nbi, long long stream);
int ucn_get(long long dst, long long src, long long bytes, int pe, int nbi, long long stream);
int ucn_put_signal(long long dst, long long src, long long bytes, long long sig, long long value, int add, int pe, int nbi, long long stream);
int ucn_signal_wait(long long sig, int cmp, long long value, long long stream);
int ucn_quiet(long long stream);
int ucn_barrier(int team, long long stream);
int ucn_atomic(int op, long long addr, long long a, long long b, int pe, long long result, long long stream);
int ucn_team_split_strided(int parent, int start, int stride, int size, int *out);
int ucn_team_split_2d(int parent, int xrange, int *out_x, int *out_y);
int ucn_team_info(int team, int *my_pe, int *n_pes);
int ucn_team_translate(int team, int pe, int dest, int *out);
int ucn_team_destroy(int team);
int ucn_broadcast(int team, long long dst, long long src, long long bytes, int root, long long stream);
int ucn_fcollect(int team, long long dst, long long src, long long bytes, long long stream);
int ucn_alltoall(int team, long long dst, long long src, long long bytes, long long stream);
int ucn_reduce(int team, int dtype, int op, int scatter, long long dst, long long src, long long count, long long stream);
/* CUDA graphs: capture a stream's work (this thread only), instantiate it, replay it. */
int ucn_graph_begin(long long stream);
int ucn_graph_end(long long stream, long long *exec);
int ucn_graph_launch(long long exec, long long stream);
int ucn_graph_destroy(long long exec);
/* MoE kernels (ucn_moe.cuh): args is the ucn_moe_args block of ucn_moe.h, n its length in words. */
int ucn_moe_device_info(int *sms, long long *smem);
int ucn_moe_profile(int on);
int ucn_moe_times(float *out);
int ucn_moe_layout(const long long *args, int n);
int ucn_moe_normal_dispatch(const long long *args, int n, int cached);
int ucn_moe_normal_combine(const long long *args, int n);
int ucn_moe_ll_dispatch(const long long *args, int n);
int ucn_moe_ll_combine(const long long *args, int n);

#ifdef __cplusplus
}
#endif
#endif
