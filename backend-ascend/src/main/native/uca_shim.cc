/*
 * Implementation of uca_shim.h. The vendor declarations below are this project's own,
 * written from the public Ascend SHMEM headers (include/host/...) and the ACL runtime
 * documentation; only the subset unicomm calls is declared.
 */
#include "uca_shim.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <mutex>
#include <string>

namespace {

// ---- ACL runtime types --------------------------------------------------------------------
typedef int acl_error_t;
typedef void *acl_stream_t;
constexpr int ACL_REPEAT_INITIALIZE = 100002;  // aclInit called twice: not an error for us
constexpr int ACL_MALLOC_HUGE_FIRST = 0;       // aclrtMemMallocPolicy

// ---- Ascend SHMEM types (layout of aclshmem_host_def.h / shmem_host_def.h) -----------------
constexpr int UID_INNER_LEN = 124;
struct uniqueid_t {  // aclshmemx_uniqueid_t
    int32_t version;
    int my_pe;
    int n_pes;
    char internal[UID_INNER_LEN];
};
struct optional_attr_t {  // aclshmem_init_optional_attr_t
    int version;
    int data_op_engine_type;  // data_op_engine_type_t, an int-sized enum
    uint32_t shm_init_timeout;
    uint32_t shm_create_timeout;
    uint32_t control_operation_timeout;
    int32_t sock_fd;
};
struct init_attr_t {  // aclshmemx_init_attr_t
    int my_pe;
    int n_pes;
    char ip_port[64];
    uint64_t local_mem_size;
    optional_attr_t option_attr;
    void *comm_args;
    uint64_t instance_id;
};
constexpr int DATA_OP_MTE = 0x01;
constexpr int INIT_WITH_UNIQUEID = 1 << 3;  // aclshmemx_bootstrap_t
constexpr int MEM_HOST_SIDE = 0;            // aclshmem_mem_type_t
constexpr int MEM_DEVICE_SIDE = 1;
typedef int (*decrypt_handler_t)(const char *, size_t, char *, size_t &);

struct Api {
    // ACL
    acl_error_t (*aclInit)(const char *);
    acl_error_t (*aclrtGetDeviceCount)(uint32_t *);
    acl_error_t (*aclrtSetDevice)(int32_t);
    acl_error_t (*aclrtResetDevice)(int32_t);
    acl_error_t (*aclrtMalloc)(void **, size_t, int);
    acl_error_t (*aclrtFree)(void *);
    acl_error_t (*aclrtMemcpy)(void *, size_t, const void *, size_t, int);
    acl_error_t (*aclrtMemcpyAsync)(void *, size_t, const void *, size_t, int, acl_stream_t);
    acl_error_t (*aclrtMemset)(void *, size_t, int32_t, size_t);
    acl_error_t (*aclrtMemsetAsync)(void *, size_t, int32_t, size_t, acl_stream_t);
    acl_error_t (*aclrtCreateStream)(acl_stream_t *);
    acl_error_t (*aclrtDestroyStream)(acl_stream_t);
    acl_error_t (*aclrtSynchronizeStreamWithTimeout)(acl_stream_t, int32_t);
    acl_error_t (*aclrtStreamQuery)(acl_stream_t, int *);  // aclrtStreamStatus*: 0 = complete
    acl_error_t (*aclrtSynchronizeDeviceWithTimeout)(int32_t);
    const char *(*aclGetRecentErrMsg)(void);  // optional
    // SHMEM control
    int32_t (*aclshmemx_set_conf_store_tls)(bool, const char *, uint32_t);
    int32_t (*aclshmemx_set_config_store_tls_key)(const char *, uint32_t, const char *, uint32_t, decrypt_handler_t);
    int (*aclshmemx_get_uniqueid)(uniqueid_t *);
    int (*aclshmemx_set_attr_uniqueid_args)(int, int, int64_t, uniqueid_t *, init_attr_t *);
    int (*aclshmemx_init_attr)(int, init_attr_t *);
    int (*aclshmem_finalize)(void);
    int (*aclshmem_my_pe)(void);
    int (*aclshmem_n_pes)(void);
    void *(*aclshmem_align)(size_t, size_t);
    void (*aclshmem_free)(void *);
    void *(*aclshmemx_align)(size_t, size_t, int);  // optional: host-side heap
    void (*aclshmemx_free)(void *, int);            // optional: host-side heap
    void *(*aclshmem_ptr)(void *, int);
    // SHMEM data
    void (*aclshmem_putmem)(void *, void *, size_t, int32_t);
    void (*aclshmem_getmem)(void *, void *, size_t, int32_t);
    void (*aclshmem_putmem_nbi)(void *, void *, size_t, int32_t);
    void (*aclshmem_getmem_nbi)(void *, void *, size_t, int32_t);
    void (*aclshmemx_putmem_signal)(void *, void *, size_t, void *, int32_t, int, int);
    void (*aclshmemx_putmem_signal_nbi)(void *, void *, size_t, void *, int32_t, int, int);
    void (*aclshmemx_putmem_on_stream)(void *, void *, size_t, int32_t, acl_stream_t);
    void (*aclshmemx_getmem_on_stream)(void *, void *, size_t, int32_t, acl_stream_t);
    void (*aclshmemx_signal_op_on_stream)(int32_t *, int32_t, int, int, acl_stream_t);
    void (*aclshmemx_signal_wait_until_on_stream)(int32_t *, int, int32_t, acl_stream_t);
    void (*aclshmemx_quiet_on_stream)(acl_stream_t);
    void (*aclshmemx_barrier_on_stream)(int, acl_stream_t);
    // teams
    int (*aclshmem_team_split_strided)(int, int, int, int, int *);
    int (*aclshmem_team_split_2d)(int, int, int *, int *);
    int (*aclshmem_team_translate_pe)(int, int, int);
    int (*aclshmem_team_my_pe)(int);
    int (*aclshmem_team_n_pes)(int);
    void (*aclshmem_team_destroy)(int);
};

Api api;
bool loaded = false;
std::string loaded_acl, loaded_shmem;
std::mutex load_lock;
thread_local std::string message;
init_attr_t attr;       // filled by uca_shm_set_attr_uid, consumed by uca_shm_init_attr
uniqueid_t attr_uid;    // comm_args of attr points here: it must outlive aclshmemx_init_attr

template <typename F>
bool bind(void *lib, const char *name, F &slot, std::string &missing, bool optional = false) {
    slot = reinterpret_cast<F>(dlsym(lib, name));
    if (slot == nullptr && !optional) {
        if (!missing.empty()) missing += ", ";
        missing += name;
    }
    return slot != nullptr;
}


void *ptr(long long address) { return reinterpret_cast<void *>(static_cast<uintptr_t>(address)); }
acl_stream_t stream_of(long long handle) { return ptr(handle); }

int copy_out(const std::string &s, signed char *buf, int len) {
    if (buf != nullptr && len > 0) {
        size_t n = s.size() < static_cast<size_t>(len - 1) ? s.size() : static_cast<size_t>(len - 1);
        memcpy(buf, s.data(), n);
        buf[n] = 0;
    }
    return static_cast<int>(s.size());
}

}  // namespace

extern "C" {

int uca_load(const char *acl_path, const char *shmem_path) {
    std::lock_guard<std::mutex> guard(load_lock);
    if (loaded && loaded_acl == acl_path && loaded_shmem == shmem_path) return UCA_LOAD_OK;
    // Probe into a scratch table first, so a failed probe never disturbs a working binding.
    Api probe;
    memset(&probe, 0, sizeof probe);
    void *acl = dlopen(acl_path, RTLD_NOW | RTLD_GLOBAL);
    if (acl == nullptr) {
        const char *e = dlerror();
        message = e ? e : acl_path;
        return UCA_LOAD_ACL_MISSING;
    }
    void *shm = dlopen(shmem_path, RTLD_NOW | RTLD_GLOBAL);
    if (shm == nullptr) {
        const char *e = dlerror();
        message = e ? e : shmem_path;
        return UCA_LOAD_SHMEM_MISSING;
    }
    std::string missing;
#define BIND(lib, fn) bind(lib, #fn, probe.fn, missing)
#define BIND_OPTIONAL(lib, fn) bind(lib, #fn, probe.fn, missing, true)
    BIND(acl, aclInit);
    BIND(acl, aclrtGetDeviceCount);
    BIND(acl, aclrtSetDevice);
    BIND(acl, aclrtResetDevice);
    BIND(acl, aclrtMalloc);
    BIND(acl, aclrtFree);
    BIND(acl, aclrtMemcpy);
    BIND(acl, aclrtMemcpyAsync);
    BIND(acl, aclrtMemset);
    BIND(acl, aclrtMemsetAsync);
    BIND(acl, aclrtCreateStream);
    BIND(acl, aclrtDestroyStream);
    BIND(acl, aclrtSynchronizeStreamWithTimeout);
    BIND(acl, aclrtStreamQuery);
    BIND(acl, aclrtSynchronizeDeviceWithTimeout);
    BIND_OPTIONAL(acl, aclGetRecentErrMsg);
    std::string acl_missing = missing;
    missing.clear();
    BIND(shm, aclshmemx_set_conf_store_tls);
    BIND(shm, aclshmemx_set_config_store_tls_key);
    BIND(shm, aclshmemx_get_uniqueid);
    BIND(shm, aclshmemx_set_attr_uniqueid_args);
    BIND(shm, aclshmemx_init_attr);
    BIND(shm, aclshmem_finalize);
    BIND(shm, aclshmem_my_pe);
    BIND(shm, aclshmem_n_pes);
    BIND(shm, aclshmem_align);
    BIND(shm, aclshmem_free);
    BIND_OPTIONAL(shm, aclshmemx_align);
    BIND_OPTIONAL(shm, aclshmemx_free);
    BIND(shm, aclshmem_ptr);
    BIND(shm, aclshmem_putmem);
    BIND(shm, aclshmem_getmem);
    BIND(shm, aclshmem_putmem_nbi);
    BIND(shm, aclshmem_getmem_nbi);
    BIND(shm, aclshmemx_putmem_signal);
    BIND(shm, aclshmemx_putmem_signal_nbi);
    BIND(shm, aclshmemx_putmem_on_stream);
    BIND(shm, aclshmemx_getmem_on_stream);
    BIND(shm, aclshmemx_signal_op_on_stream);
    BIND(shm, aclshmemx_signal_wait_until_on_stream);
    BIND(shm, aclshmemx_quiet_on_stream);
    BIND(shm, aclshmemx_barrier_on_stream);
    BIND(shm, aclshmem_team_split_strided);
    BIND(shm, aclshmem_team_split_2d);
    BIND(shm, aclshmem_team_translate_pe);
    BIND(shm, aclshmem_team_my_pe);
    BIND(shm, aclshmem_team_n_pes);
    BIND(shm, aclshmem_team_destroy);
    if (!acl_missing.empty() || !missing.empty()) {
        message.clear();
        if (!acl_missing.empty()) message += std::string(acl_path) + " lacks " + acl_missing;
        if (!missing.empty()) message += (message.empty() ? "" : "; ") + std::string(shmem_path) + " lacks " + missing;
        return UCA_LOAD_SYMBOLS_MISSING;
    }
    if (loaded) {
        message = std::string("this process is already bound to ") + loaded_acl + " and " + loaded_shmem;
        return UCA_LOAD_CONFLICT;
    }
    api = probe;
    loaded = true;
    loaded_acl = acl_path;
    loaded_shmem = shmem_path;
    message.clear();
    return UCA_LOAD_OK;
}

int uca_message(signed char *buf, int len) { return copy_out(message, buf, len); }

int uca_has_host_heap(void) { return api.aclshmemx_align != nullptr && api.aclshmemx_free != nullptr; }

// ---- ACL -------------------------------------------------------------------------------------
int uca_acl_init(void) {
    int rc = api.aclInit(nullptr);
    return rc == ACL_REPEAT_INITIALIZE ? 0 : rc;
}
int uca_acl_device_count(int *count) {
    uint32_t n = 0;
    int rc = api.aclrtGetDeviceCount(&n);
    *count = static_cast<int>(n);
    return rc;
}
int uca_acl_set_device(int device) { return api.aclrtSetDevice(device); }
int uca_acl_reset_device(int device) { return api.aclrtResetDevice(device); }
int uca_acl_malloc(long long *out, long long bytes) {
    void *p = nullptr;
    int rc = api.aclrtMalloc(&p, static_cast<size_t>(bytes), ACL_MALLOC_HUGE_FIRST);
    *out = static_cast<long long>(reinterpret_cast<uintptr_t>(p));
    return rc;
}
int uca_acl_free(long long p) { return api.aclrtFree(ptr(p)); }
int uca_acl_memcpy(long long dst, long long src, long long bytes, int kind) {
    return api.aclrtMemcpy(ptr(dst), static_cast<size_t>(bytes), ptr(src), static_cast<size_t>(bytes), kind);
}
int uca_acl_memcpy_async(long long dst, long long src, long long bytes, int kind, long long stream) {
    return api.aclrtMemcpyAsync(ptr(dst), static_cast<size_t>(bytes), ptr(src), static_cast<size_t>(bytes), kind,
                                stream_of(stream));
}
int uca_acl_memset(long long dst, int value, long long bytes) {
    return api.aclrtMemset(ptr(dst), static_cast<size_t>(bytes), value, static_cast<size_t>(bytes));
}
int uca_acl_memset_async(long long dst, int value, long long bytes, long long stream) {
    return api.aclrtMemsetAsync(ptr(dst), static_cast<size_t>(bytes), value, static_cast<size_t>(bytes),
                                stream_of(stream));
}
int uca_acl_create_stream(long long *out) {
    acl_stream_t s = nullptr;
    int rc = api.aclrtCreateStream(&s);
    *out = static_cast<long long>(reinterpret_cast<uintptr_t>(s));
    return rc;
}
int uca_acl_destroy_stream(long long stream) { return api.aclrtDestroyStream(stream_of(stream)); }
int uca_acl_sync_stream(long long stream, int timeout_ms) {
    return api.aclrtSynchronizeStreamWithTimeout(stream_of(stream), timeout_ms);
}
int uca_acl_query_stream(long long stream, int *done) {
    int status = 1;  // ACL_STREAM_STATUS_NOT_READY
    int rc = api.aclrtStreamQuery(stream_of(stream), &status);
    *done = (rc == 0 && status == 0) ? 1 : 0;
    return rc;
}
int uca_acl_sync_device(int timeout_ms) { return api.aclrtSynchronizeDeviceWithTimeout(timeout_ms); }
int uca_acl_recent_error(signed char *buf, int len) {
    const char *m = api.aclGetRecentErrMsg ? api.aclGetRecentErrMsg() : nullptr;
    return copy_out(m ? std::string(m) : std::string(), buf, len);
}

// ---- SHMEM control ---------------------------------------------------------------------------
int uca_shm_set_tls(int enable, const char *tls_info) {
    uint32_t len = tls_info ? static_cast<uint32_t>(strlen(tls_info)) : 0;
    return api.aclshmemx_set_conf_store_tls(enable != 0, tls_info, len);
}
int uca_shm_set_tls_key(const signed char *pk, int pk_len, const signed char *pw, int pw_len) {
    return api.aclshmemx_set_config_store_tls_key(reinterpret_cast<const char *>(pk), static_cast<uint32_t>(pk_len),
                                                  reinterpret_cast<const char *>(pw), static_cast<uint32_t>(pw_len),
                                                  nullptr);
}
int uca_shm_uid_size(void) { return static_cast<int>(sizeof(uniqueid_t)); }
int uca_shm_get_uid(signed char *out, int len) {
    if (len != static_cast<int>(sizeof(uniqueid_t))) return -1;  // ACLSHMEM_INVALID_PARAM
    uniqueid_t uid;
    memset(&uid, 0, sizeof uid);
    int rc = api.aclshmemx_get_uniqueid(&uid);
    memcpy(out, &uid, sizeof uid);
    return rc;
}
int uca_shm_set_attr_uid(int pe, int npes, long long heap_bytes, const signed char *uid, int uid_len) {
    if (uid_len != static_cast<int>(sizeof(uniqueid_t))) return -1;
    memset(&attr, 0, sizeof attr);
    // The header's default member initializers: MTE engine, 120 s timeouts, versioned option block.
    attr.option_attr.version = (1 << 16) + static_cast<int>(sizeof(optional_attr_t));
    attr.option_attr.data_op_engine_type = DATA_OP_MTE;
    attr.option_attr.shm_init_timeout = 120;
    attr.option_attr.shm_create_timeout = 120;
    attr.option_attr.control_operation_timeout = 120;
    memcpy(&attr_uid, uid, sizeof attr_uid);
    return api.aclshmemx_set_attr_uniqueid_args(pe, npes, heap_bytes, &attr_uid, &attr);
}
int uca_shm_init_attr(int timeout_s) {
    uint32_t t = timeout_s > 0 ? static_cast<uint32_t>(timeout_s) : 1u;
    attr.option_attr.shm_init_timeout = t;
    attr.option_attr.shm_create_timeout = t;
    attr.option_attr.control_operation_timeout = t;
    return api.aclshmemx_init_attr(INIT_WITH_UNIQUEID, &attr);
}
int uca_shm_finalize(void) { return api.aclshmem_finalize(); }
int uca_shm_my_pe(void) { return api.aclshmem_my_pe(); }
int uca_shm_n_pes(void) { return api.aclshmem_n_pes(); }
long long uca_shm_align(long long alignment, long long bytes, int host_side) {
    void *p = host_side ? api.aclshmemx_align(static_cast<size_t>(alignment), static_cast<size_t>(bytes), MEM_HOST_SIDE)
                        : api.aclshmem_align(static_cast<size_t>(alignment), static_cast<size_t>(bytes));
    return static_cast<long long>(reinterpret_cast<uintptr_t>(p));
}
void uca_shm_free(long long p, int host_side) {
    if (host_side) api.aclshmemx_free(ptr(p), MEM_HOST_SIDE);
    else api.aclshmem_free(ptr(p));
}
long long uca_shm_ptr(long long p, int pe) {
    return static_cast<long long>(reinterpret_cast<uintptr_t>(api.aclshmem_ptr(ptr(p), pe)));
}

// ---- SHMEM data ------------------------------------------------------------------------------
void uca_shm_put(long long dst, long long src, long long bytes, int pe, int nbi) {
    (nbi ? api.aclshmem_putmem_nbi : api.aclshmem_putmem)(ptr(dst), ptr(src), static_cast<size_t>(bytes), pe);
}
void uca_shm_get(long long dst, long long src, long long bytes, int pe, int nbi) {
    (nbi ? api.aclshmem_getmem_nbi : api.aclshmem_getmem)(ptr(dst), ptr(src), static_cast<size_t>(bytes), pe);
}
void uca_shm_put_signal(long long dst, long long src, long long bytes, long long sig, int value, int op, int pe,
                        int nbi) {
    (nbi ? api.aclshmemx_putmem_signal_nbi : api.aclshmemx_putmem_signal)(
        ptr(dst), ptr(src), static_cast<size_t>(bytes), ptr(sig), value, op, pe);
}
void uca_shm_put_on_stream(long long dst, long long src, long long bytes, int pe, long long stream) {
    api.aclshmemx_putmem_on_stream(ptr(dst), ptr(src), static_cast<size_t>(bytes), pe, stream_of(stream));
}
void uca_shm_get_on_stream(long long dst, long long src, long long bytes, int pe, long long stream) {
    api.aclshmemx_getmem_on_stream(ptr(dst), ptr(src), static_cast<size_t>(bytes), pe, stream_of(stream));
}
void uca_shm_signal_op_on_stream(long long sig, int value, int op, int pe, long long stream) {
    api.aclshmemx_signal_op_on_stream(static_cast<int32_t *>(ptr(sig)), value, op, pe, stream_of(stream));
}
void uca_shm_signal_wait_on_stream(long long sig, int cmp, int value, long long stream) {
    api.aclshmemx_signal_wait_until_on_stream(static_cast<int32_t *>(ptr(sig)), cmp, value, stream_of(stream));
}
void uca_shm_quiet_on_stream(long long stream) { api.aclshmemx_quiet_on_stream(stream_of(stream)); }
void uca_shm_barrier_on_stream(int team, long long stream) { api.aclshmemx_barrier_on_stream(team, stream_of(stream)); }

// ---- teams -----------------------------------------------------------------------------------
int uca_team_split_strided(int parent, int start, int stride, int size, int *out) {
    return api.aclshmem_team_split_strided(parent, start, stride, size, out);
}
int uca_team_split_2d(int parent, int x_range, int *out_xy) {
    return api.aclshmem_team_split_2d(parent, x_range, &out_xy[0], &out_xy[1]);
}
int uca_team_translate(int src_team, int pe, int dst_team) { return api.aclshmem_team_translate_pe(src_team, pe, dst_team); }
int uca_team_my_pe(int team) { return api.aclshmem_team_my_pe(team); }
int uca_team_n_pes(int team) { return api.aclshmem_team_n_pes(team); }
void uca_team_destroy(int team) { api.aclshmem_team_destroy(team); }

}  // extern "C"
