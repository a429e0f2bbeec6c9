/*
 * libunicomm_nvshmem_ops.so: the part of the backend that needs CUDA and NVSHMEM. Built with
 * nvcc -rdc against libnvshmem_device.a (static: device-side API, and nvshmemi_init_thread, which
 * NVSHMEM ships only there) and libnvshmem_host.so.3 (dynamic). The JNI shim dlopens it, so the
 * Java module loads on machines without CUDA or NVSHMEM.
 *
 * Convention: every function returns UCN_OK or an error code and records the failing call in a
 * thread-local slot that ucn_ops_error_* report. A stream of -1 means "host-initiated, blocking".
 */
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <nvshmem.h>
#include <nvshmemx.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>
#include "ucn_codes.h"

static __thread char ucn_err_call[96];
static __thread char ucn_err_name[96];
static __thread long long ucn_err_code;

static int fail(int kind, const char *call, long long code, const char *name) {
    snprintf(ucn_err_call, sizeof ucn_err_call, "%s", call);
    snprintf(ucn_err_name, sizeof ucn_err_name, "%s", name);
    ucn_err_code = code;
    return kind;
}

static int cuda_check(cudaError_t e, const char *call) {
    if (e == cudaSuccess) return UCN_OK;
    /* Reported now: clear it, or the next launch check would report it again (non-sticky errors). */
    (void) cudaGetLastError();
    return fail(UCN_ERR_CUDA, call, (long long) e, cudaGetErrorName(e));
}

/* Errors of asynchronous launches (on-stream NVSHMEM calls return void). */
static int launch_check(const char *call) {
    cudaError_t e = cudaGetLastError();
    return cuda_check(e, call);
}

static int nv_check(int rc, const char *call) {
    if (rc == 0) return UCN_OK;
    return fail(UCN_ERR_NVSHMEM, call, rc, "NVSHMEM error status");
}

/* The runtime's current device is per thread; Java calls come from any thread. */
static int ucn_device = -1;
static __thread int ucn_thread_device = -1;
static inline void ensure_device(void) {
    if (ucn_device >= 0 && ucn_thread_device != ucn_device) {
        cudaSetDevice(ucn_device);
        ucn_thread_device = ucn_device;
    }
}

#define STREAM(s) ((cudaStream_t) (intptr_t) (s))
#define PTR(p) ((void *) (intptr_t) (p))

static nvshmem_team_t team_of(int handle) { return (nvshmem_team_t) handle; }

extern "C" {

const char *ucn_ops_error_call(void) { return ucn_err_call; }
const char *ucn_ops_error_name(void) { return ucn_err_name; }
long long ucn_ops_error_code(void) { return ucn_err_code; }

int ucn_ops_cuda_probe(int *device_count, int *driver_version) {
    int rc = cuda_check(cudaDriverGetVersion(driver_version), "cudaDriverGetVersion");
    if (rc) return rc;
    return cuda_check(cudaGetDeviceCount(device_count), "cudaGetDeviceCount");
}

int ucn_ops_get_uniqueid(signed char *out, int capacity) {
    nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
    if (capacity < (int) sizeof id) return fail(UCN_ERR_ARGUMENT, "nvshmemx_get_uniqueid", capacity, "buffer too small");
    int rc = nv_check(nvshmemx_get_uniqueid(&id), "nvshmemx_get_uniqueid");
    if (rc) return rc;
    memcpy(out, &id, sizeof id);
    return UCN_OK;
}

int ucn_ops_init(int rank, int nranks, const signed char *uid, int uid_len, int device) {
    nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
    if (uid_len != (int) sizeof id) return fail(UCN_ERR_ARGUMENT, "nvshmemx_set_attr_uniqueid_args", uid_len, "unique id has the wrong size");
    memcpy(&id, uid, sizeof id);
    /* Under MPS a client killed a moment ago may still hold the device: the server answers
     * cudaErrorDevicesUnavailable until it has cleaned up. Retry for at most 20 s. */
    cudaError_t e = cudaSetDevice(device);
    for (int i = 0; e == cudaErrorDevicesUnavailable && i < 200; i++) {
        (void) cudaGetLastError();
        usleep(100000);
        e = cudaSetDevice(device);
    }
    int rc = cuda_check(e, "cudaSetDevice");
    if (rc) return rc;
    ucn_device = device;
    ucn_thread_device = device;
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    rc = nv_check(nvshmemx_set_attr_uniqueid_args(rank, nranks, &id, &attr), "nvshmemx_set_attr_uniqueid_args");
    if (rc) return rc;
    /* nvshmemx_init_attr would exit() the process on failure; call what it wraps instead. */
    int provided = 0;
    nvshmemi_version_t version = {NVSHMEM_VENDOR_MAJOR_VERSION, NVSHMEM_VENDOR_MINOR_VERSION, NVSHMEM_VENDOR_PATCH_VERSION};
    rc = nv_check(nvshmemi_init_thread(NVSHMEM_THREAD_SERIALIZED, &provided, NVSHMEMX_INIT_WITH_UNIQUEID, &attr, version),
                  "nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID)");
    if (rc) return rc;
    if (nvshmem_my_pe() != rank || nvshmem_n_pes() != nranks)
        return fail(UCN_ERR_NVSHMEM, "nvshmem_my_pe/nvshmem_n_pes", nvshmem_my_pe(), "PE numbering differs from the job's ranks");
    return UCN_OK;
}

int ucn_ops_finalize(void) {
    ensure_device();
    nvshmem_finalize();
    return UCN_OK;
}

/* nvshmemx_init_status: 3 = LIMITED_MPG (several PEs on a GPU without MPS: no collectives), 4 = FULL_MPG. */
int ucn_ops_init_status(int *status) {
    *status = nvshmemx_init_status();
    return UCN_OK;
}

int ucn_ops_sym_alloc(long long bytes, long long alignment, long long *out) {
    ensure_device();
    void *p = nvshmem_align((size_t) alignment, (size_t) bytes);
    if (p == NULL) return fail(UCN_ERR_NVSHMEM, "nvshmem_align", bytes, "symmetric heap exhausted (NULL)");
    *out = (long long) (intptr_t) p;
    return UCN_OK;
}

int ucn_ops_sym_free(long long ptr) {
    ensure_device();
    nvshmem_free(PTR(ptr));
    return UCN_OK;
}

int ucn_ops_peer_ptr(long long addr, int pe, long long *out) {
    ensure_device();
    *out = (long long) (intptr_t) nvshmem_ptr(PTR(addr), pe);
    return UCN_OK;
}

/*
 * Start of this PE's symmetric heap. NVSHMEM has no host call for it; its device state holds it
 * (the base every device put computes offsets from), so one thread reads it out.
 */
__global__ void heap_base_kernel(unsigned long long *out) { *out = (unsigned long long) (uintptr_t) nvshmemi_device_state_d.heap_base; }

int ucn_ops_heap_base(long long *out) {
    ensure_device();
    unsigned long long *word = NULL;
    int rc = cuda_check(cudaMallocHost((void **) &word, sizeof *word), "cudaMallocHost");
    if (rc) return rc;
    *word = 0;
    heap_base_kernel<<<1, 1>>>(word);
    rc = launch_check("heap_base_kernel launch");
    if (!rc) rc = cuda_check(cudaStreamSynchronize(0), "heap_base_kernel");
    *out = (long long) *word;
    cudaFreeHost(word);
    return rc;
}

int ucn_ops_register_host(long long addr, long long bytes) {
    ensure_device();
    return nv_check(nvshmemx_buffer_register(PTR(addr), (size_t) bytes), "nvshmemx_buffer_register");
}

int ucn_ops_unregister_host(long long addr) {
    ensure_device();
    return nv_check(nvshmemx_buffer_unregister(PTR(addr)), "nvshmemx_buffer_unregister");
}

int ucn_ops_dev_alloc(long long bytes, long long *out) {
    ensure_device();
    void *p = NULL;
    int rc = cuda_check(cudaMalloc(&p, (size_t) bytes), "cudaMalloc");
    if (rc == UCN_OK) *out = (long long) (intptr_t) p;
    return rc;
}

int ucn_ops_dev_free(long long ptr) {
    ensure_device();
    return cuda_check(cudaFree(PTR(ptr)), "cudaFree");
}

int ucn_ops_pinned_alloc(long long bytes, long long *out) {
    ensure_device();
    void *p = NULL;
    int rc = cuda_check(cudaMallocHost(&p, (size_t) bytes), "cudaMallocHost");
    if (rc == UCN_OK) *out = (long long) (intptr_t) p;
    return rc;
}

int ucn_ops_pinned_free(long long ptr) {
    ensure_device();
    return cuda_check(cudaFreeHost(PTR(ptr)), "cudaFreeHost");
}

int ucn_ops_copy_async(long long dst, long long src, long long bytes, long long stream) {
    ensure_device();
    return cuda_check(cudaMemcpyAsync(PTR(dst), PTR(src), (size_t) bytes, cudaMemcpyDefault, STREAM(stream)), "cudaMemcpyAsync");
}

int ucn_ops_fill_async(long long dst, int value, long long bytes, long long stream) {
    ensure_device();
    return cuda_check(cudaMemsetAsync(PTR(dst), value, (size_t) bytes, STREAM(stream)), "cudaMemsetAsync");
}

int ucn_ops_stream_create(long long *out) {
    ensure_device();
    cudaStream_t s;
    /* Non-blocking: our streams never wait for the legacy default stream (or it for them). */
    int rc = cuda_check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    if (rc == UCN_OK) *out = (long long) (intptr_t) s;
    return rc;
}

int ucn_ops_stream_destroy(long long stream) {
    ensure_device();
    return cuda_check(cudaStreamDestroy(STREAM(stream)), "cudaStreamDestroy");
}

int ucn_ops_stream_query(long long stream) {
    ensure_device();
    cudaError_t e = cudaStreamQuery(STREAM(stream));
    if (e == cudaErrorNotReady) return UCN_NOT_READY;
    return cuda_check(e, "cudaStreamQuery");
}

int ucn_ops_device_sync(void) {
    ensure_device();
    return cuda_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
}

int ucn_ops_put(long long dst, long long src, long long bytes, int pe, int nbi, long long stream) {
    ensure_device();
    if (stream == -1) {
        if (nbi) nvshmem_putmem_nbi(PTR(dst), PTR(src), (size_t) bytes, pe);
        else nvshmem_putmem(PTR(dst), PTR(src), (size_t) bytes, pe);
        return UCN_OK;
    }
    if (nbi) nvshmemx_putmem_nbi_on_stream(PTR(dst), PTR(src), (size_t) bytes, pe, STREAM(stream));
    else nvshmemx_putmem_on_stream(PTR(dst), PTR(src), (size_t) bytes, pe, STREAM(stream));
    return launch_check(nbi ? "nvshmemx_putmem_nbi_on_stream" : "nvshmemx_putmem_on_stream");
}

int ucn_ops_get(long long dst, long long src, long long bytes, int pe, int nbi, long long stream) {
    ensure_device();
    if (stream == -1) {
        if (nbi) nvshmem_getmem_nbi(PTR(dst), PTR(src), (size_t) bytes, pe);
        else nvshmem_getmem(PTR(dst), PTR(src), (size_t) bytes, pe);
        return UCN_OK;
    }
    if (nbi) nvshmemx_getmem_nbi_on_stream(PTR(dst), PTR(src), (size_t) bytes, pe, STREAM(stream));
    else nvshmemx_getmem_on_stream(PTR(dst), PTR(src), (size_t) bytes, pe, STREAM(stream));
    return launch_check(nbi ? "nvshmemx_getmem_nbi_on_stream" : "nvshmemx_getmem_on_stream");
}

int ucn_ops_put_signal(long long dst, long long src, long long bytes, long long sig, long long value, int add, int pe,
                      int nbi, long long stream) {
    ensure_device();
    int op = add ? NVSHMEM_SIGNAL_ADD : NVSHMEM_SIGNAL_SET;
    uint64_t *s = (uint64_t *) PTR(sig);
    if (nbi) nvshmemx_putmem_signal_nbi_on_stream(PTR(dst), PTR(src), (size_t) bytes, s, (uint64_t) value, op, pe, STREAM(stream));
    else nvshmemx_putmem_signal_on_stream(PTR(dst), PTR(src), (size_t) bytes, s, (uint64_t) value, op, pe, STREAM(stream));
    return launch_check(nbi ? "nvshmemx_putmem_signal_nbi_on_stream" : "nvshmemx_putmem_signal_on_stream");
}

int ucn_ops_signal_wait(long long sig, int cmp, long long value, long long stream) {
    ensure_device();
    static const int cmps[] = {NVSHMEM_CMP_EQ, NVSHMEM_CMP_NE, NVSHMEM_CMP_GT, NVSHMEM_CMP_GE, NVSHMEM_CMP_LT, NVSHMEM_CMP_LE};
    if (cmp < 0 || cmp > 5) return fail(UCN_ERR_ARGUMENT, "nvshmemx_signal_wait_until_on_stream", cmp, "unknown comparison");
    nvshmemx_signal_wait_until_on_stream((uint64_t *) PTR(sig), cmps[cmp], (uint64_t) value, STREAM(stream));
    return launch_check("nvshmemx_signal_wait_until_on_stream");
}

int ucn_ops_quiet(long long stream) {
    ensure_device();
    if (stream == -1) {
        nvshmem_quiet();
        return UCN_OK;
    }
    nvshmemx_quiet_on_stream(STREAM(stream));
    return launch_check("nvshmemx_quiet_on_stream");
}

int ucn_ops_barrier(int team, long long stream) {
    ensure_device();
    if (team == UCN_TEAM_WORLD) {
        nvshmemx_barrier_all_on_stream(STREAM(stream));
        return launch_check("nvshmemx_barrier_all_on_stream");
    }
    int rc = nv_check(nvshmemx_barrier_on_stream(team_of(team), STREAM(stream)), "nvshmemx_barrier_on_stream");
    return rc ? rc : launch_check("nvshmemx_barrier_on_stream");
}

/* One thread does the atomic with the device API (adds use the uint64 entry points: same bits,
 * and the device library defines no int64 add);  the old value goes to *result (pinned host memory). */
__global__ void ucn_amo_kernel(int op, int64_t *addr, int64_t a, int64_t b, int pe, int64_t *result) {
    int64_t old = 0;
    switch (op) {
        case UCN_AMO_FETCH: old = nvshmem_int64_atomic_fetch(addr, pe); break;
        case UCN_AMO_SET: nvshmem_int64_atomic_set(addr, a, pe); break;
        case UCN_AMO_FETCH_ADD: old = (int64_t) nvshmem_uint64_atomic_fetch_add((uint64_t *) addr, (uint64_t) a, pe); break;
        case UCN_AMO_ADD: nvshmem_uint64_atomic_add((uint64_t *) addr, (uint64_t) a, pe); break;
        case UCN_AMO_CSWAP: old = nvshmem_int64_atomic_compare_swap(addr, a, b, pe); break;
        case UCN_AMO_SWAP: old = nvshmem_int64_atomic_swap(addr, a, pe); break;
    }
    if (op == UCN_AMO_SET || op == UCN_AMO_ADD) nvshmem_quiet();
    if (result != NULL) *result = old;
}

int ucn_ops_atomic(int op, long long addr, long long a, long long b, int pe, long long result, long long stream) {
    ensure_device();
    if (op < UCN_AMO_FETCH || op > UCN_AMO_SWAP) return fail(UCN_ERR_ARGUMENT, "ucn_amo_kernel", op, "unknown atomic");
    ucn_amo_kernel<<<1, 1, 0, STREAM(stream)>>>(op, (int64_t *) PTR(addr), (int64_t) a, (int64_t) b, pe, (int64_t *) PTR(result));
    return launch_check("ucn_amo_kernel<<<1,1>>> (nvshmem_int64_atomic_*)");
}

int ucn_ops_team_split_strided(int parent, int start, int stride, int size, int *out) {
    ensure_device();
    nvshmem_team_t t = NVSHMEM_TEAM_INVALID;
    int rc = nv_check(nvshmem_team_split_strided(team_of(parent), start, stride, size, NULL, 0, &t), "nvshmem_team_split_strided");
    *out = (int) t;
    return rc;
}

int ucn_ops_team_split_2d(int parent, int xrange, int *out_x, int *out_y) {
    ensure_device();
    nvshmem_team_t x = NVSHMEM_TEAM_INVALID, y = NVSHMEM_TEAM_INVALID;
    int rc = nv_check(nvshmem_team_split_2d(team_of(parent), xrange, NULL, 0, &x, NULL, 0, &y), "nvshmem_team_split_2d");
    *out_x = (int) x;
    *out_y = (int) y;
    return rc;
}

int ucn_ops_team_info(int team, int *my_pe, int *n_pes) {
    ensure_device();
    *my_pe = nvshmem_team_my_pe(team_of(team));
    *n_pes = nvshmem_team_n_pes(team_of(team));
    return UCN_OK;
}

int ucn_ops_team_translate(int team, int pe, int dest, int *out) {
    ensure_device();
    *out = nvshmem_team_translate_pe(team_of(team), pe, team_of(dest));
    return UCN_OK;
}

int ucn_ops_team_destroy(int team) {
    ensure_device();
    nvshmem_team_destroy(team_of(team));
    return UCN_OK;
}

int ucn_ops_broadcast(int team, long long dst, long long src, long long bytes, int root, long long stream) {
    ensure_device();
    int rc = nv_check(nvshmemx_broadcastmem_on_stream(team_of(team), PTR(dst), PTR(src), (size_t) bytes, root, STREAM(stream)),
                      "nvshmemx_broadcastmem_on_stream");
    return rc ? rc : launch_check("nvshmemx_broadcastmem_on_stream");
}

int ucn_ops_fcollect(int team, long long dst, long long src, long long bytes, long long stream) {
    ensure_device();
    int rc = nv_check(nvshmemx_fcollectmem_on_stream(team_of(team), PTR(dst), PTR(src), (size_t) bytes, STREAM(stream)),
                      "nvshmemx_fcollectmem_on_stream");
    return rc ? rc : launch_check("nvshmemx_fcollectmem_on_stream");
}

int ucn_ops_alltoall(int team, long long dst, long long src, long long bytes, long long stream) {
    ensure_device();
    int rc = nv_check(nvshmemx_alltoallmem_on_stream(team_of(team), PTR(dst), PTR(src), (size_t) bytes, STREAM(stream)),
                      "nvshmemx_alltoallmem_on_stream");
    return rc ? rc : launch_check("nvshmemx_alltoallmem_on_stream");
}

/* One NVSHMEM reduce/reducescatter per (type, op): TYPENAME is NVSHMEM's type name. */
#define UCN_REDUCE_CASE(TYPENAME, TYPE, OPNAME)                                                            \
    if (scatter) rc = nvshmemx_##TYPENAME##_##OPNAME##_reducescatter_on_stream(t, (TYPE *) PTR(dst),       \
                          (const TYPE *) PTR(src), (size_t) count, s);                                     \
    else rc = nvshmemx_##TYPENAME##_##OPNAME##_reduce_on_stream(t, (TYPE *) PTR(dst), (const TYPE *) PTR(src), \
                          (size_t) count, s);                                                               \
    call = scatter ? "nvshmemx_" #TYPENAME "_" #OPNAME "_reducescatter_on_stream"                          \
                   : "nvshmemx_" #TYPENAME "_" #OPNAME "_reduce_on_stream";

#define UCN_REDUCE_OPS(TYPENAME, TYPE)                                  \
    switch (op) {                                                      \
        case UCN_OP_SUM: { UCN_REDUCE_CASE(TYPENAME, TYPE, sum) break; }   \
        case UCN_OP_MIN: { UCN_REDUCE_CASE(TYPENAME, TYPE, min) break; }   \
        case UCN_OP_MAX: { UCN_REDUCE_CASE(TYPENAME, TYPE, max) break; }   \
        case UCN_OP_PROD: { UCN_REDUCE_CASE(TYPENAME, TYPE, prod) break; } \
        default: return fail(UCN_ERR_ARGUMENT, "reduce", op, "unknown reduction"); \
    }

int ucn_ops_reduce(int team, int dtype, int op, int scatter, long long dst, long long src, long long count, long long stream) {
    ensure_device();
    nvshmem_team_t t = team_of(team);
    cudaStream_t s = STREAM(stream);
    int rc = 0;
    const char *call = "reduce";
    switch (dtype) {
        case UCN_DT_INT32: UCN_REDUCE_OPS(int32, int32_t) break;
        case UCN_DT_INT64: UCN_REDUCE_OPS(int64, int64_t) break;
        case UCN_DT_FP32: UCN_REDUCE_OPS(float, float) break;
        case UCN_DT_FP16: UCN_REDUCE_OPS(half, half) break;
        case UCN_DT_BF16: UCN_REDUCE_OPS(bfloat16, __nv_bfloat16) break;
        default: return fail(UCN_ERR_ARGUMENT, "reduce", dtype, "unknown element type");
    }
    rc = nv_check(rc, call);
    return rc ? rc : launch_check(call);
}

}

/* CUDA graphs: capture of one stream's work (this thread only), instantiation, replay. */
extern "C" {

int ucn_ops_graph_begin(long long stream) {
    ensure_device();
    return cuda_check(cudaStreamBeginCapture(STREAM(stream), cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
}

int ucn_ops_graph_end(long long stream, long long *exec) {
    ensure_device();
    cudaGraph_t g = NULL;
    int rc = cuda_check(cudaStreamEndCapture(STREAM(stream), &g), "cudaStreamEndCapture");
    if (rc) return rc;
    cudaGraphExec_t e = NULL;
    rc = cuda_check(cudaGraphInstantiate(&e, g, 0), "cudaGraphInstantiate");
    cudaGraphDestroy(g);
    if (rc == UCN_OK) *exec = (long long) (intptr_t) e;
    return rc;
}

int ucn_ops_graph_launch(long long exec, long long stream) {
    ensure_device();
    return cuda_check(cudaGraphLaunch((cudaGraphExec_t) PTR(exec), STREAM(stream)), "cudaGraphLaunch");
}

int ucn_ops_graph_destroy(long long exec) {
    ensure_device();
    return cuda_check(cudaGraphExecDestroy((cudaGraphExec_t) PTR(exec)), "cudaGraphExecDestroy");
}

}

#include "ucn_moe.cuh"
