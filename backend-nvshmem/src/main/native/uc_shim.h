/*
 * The JNI-facing C API of backend-nvshmem, parsed by JavaCPP into NvshmemShim. Implemented in
 * uc_shim.c, which links only libc: it dlopens the NVSHMEM host library and our CUDA ops library
 * (libunicomm_nvshmem_ops.so) on request, so the JNI library itself loads on every Linux machine.
 * Each uc_X forwards to uc_ops_X of the ops library (see uc_ops_list.h) and returns 0 or an error
 * code (uc_codes.h); uc_error_* describe the last failure of the calling thread.
 */
#ifndef UC_SHIM_H
#define UC_SHIM_H

#ifdef __cplusplus
extern "C" {
#endif

/* dlopen of the driver library libcuda.so.1: 0, or 1 with the reason in uc_load_error(). */
int uc_probe_driver(void);
/* Loads NVSHMEM's host library (path may be empty: use the loader's search path) and the ops library. */
int uc_load(const char *nvshmem_host_path, const char *ops_path);
/* Whether uc_load succeeded. */
int uc_loaded(void);
/* Why the last uc_probe_driver/uc_load failed. */
const char *uc_load_error(void);
/* setenv(3), so that NVSHMEM_* settings reach NVSHMEM, which reads the process environment. */
int uc_setenv(const char *name, const char *value, int overwrite);
/* The failing call, its error name and code of this thread's last failed uc_ operation. */
const char *uc_error_call(void);
const char *uc_error_name(void);
long long uc_error_code(void);

int uc_cuda_probe(int *device_count, int *driver_version);
int uc_get_uniqueid(signed char *out, int capacity);
int uc_init(int rank, int nranks, const signed char *uid, int uid_len, int device);
int uc_finalize(void);
int uc_init_status(int *status);
int uc_sym_alloc(long long bytes, long long alignment, long long *out);
int uc_sym_free(long long ptr);
int uc_peer_ptr(long long addr, int pe, long long *out);
int uc_register_host(long long addr, long long bytes);
int uc_unregister_host(long long addr);
int uc_dev_alloc(long long bytes, long long *out);
int uc_dev_free(long long ptr);
int uc_pinned_alloc(long long bytes, long long *out);
int uc_pinned_free(long long ptr);
int uc_copy_async(long long dst, long long src, long long bytes, long long stream);
int uc_fill_async(long long dst, int value, long long bytes, long long stream);
int uc_stream_create(long long *out);
int uc_stream_destroy(long long stream);
int uc_stream_query(long long stream);
int uc_device_sync(void);
int uc_put(long long dst, long long src, long long bytes, int pe, int nbi, long long stream);
int uc_get(long long dst, long long src, long long bytes, int pe, int nbi, long long stream);
int uc_put_signal(long long dst, long long src, long long bytes, long long sig, long long value, int add, int pe, int nbi, long long stream);
int uc_signal_wait(long long sig, int cmp, long long value, long long stream);
int uc_quiet(long long stream);
int uc_barrier(int team, long long stream);
int uc_atomic(int op, long long addr, long long a, long long b, int pe, long long result, long long stream);
int uc_team_split_strided(int parent, int start, int stride, int size, int *out);
int uc_team_split_2d(int parent, int xrange, int *out_x, int *out_y);
int uc_team_info(int team, int *my_pe, int *n_pes);
int uc_team_translate(int team, int pe, int dest, int *out);
int uc_team_destroy(int team);
int uc_broadcast(int team, long long dst, long long src, long long bytes, int root, long long stream);
int uc_fcollect(int team, long long dst, long long src, long long bytes, long long stream);
int uc_alltoall(int team, long long dst, long long src, long long bytes, long long stream);
int uc_reduce(int team, int dtype, int op, int scatter, long long dst, long long src, long long count, long long stream);
/* CUDA graphs: capture a stream's work (this thread only), instantiate it, replay it. */
int uc_graph_begin(long long stream);
int uc_graph_end(long long stream, long long *exec);
int uc_graph_launch(long long exec, long long stream);
int uc_graph_destroy(long long exec);
/* MoE kernels (uc_moe.cuh): args is the uc_moe_args block of uc_moe.h, n its length in words. */
int uc_moe_device_info(int *sms, long long *smem);
int uc_moe_profile(int on);
int uc_moe_times(float *out);
int uc_moe_layout(const long long *args, int n);
int uc_moe_normal_dispatch(const long long *args, int n, int cached);
int uc_moe_normal_combine(const long long *args, int n);
int uc_moe_ll_dispatch(const long long *args, int n);
int uc_moe_ll_combine(const long long *args, int n);

#ifdef __cplusplus
}
#endif
#endif
