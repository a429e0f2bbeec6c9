/*
 * The JNI side's implementation of ucn_shim.h. Links only libc/libdl: the NVIDIA driver, NVSHMEM
 * and our CUDA ops library are opened with dlopen when asked, and a missing one comes back as a
 * message (dlerror) instead of an UnsatisfiedLinkError.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ucn_shim.h"
#include "ucn_codes.h"
#include "ucn_ops_list.h"

static char load_error[1024];
static void *ops_handle;
static int ops_ready;

/* One function pointer per operation, named p_<name>. */
#define UCN_DECLARE_POINTER(name, params, args) static int (*p_##name) params;
UCN_OPS_LIST(UCN_DECLARE_POINTER)
static const char *(*p_error_call)(void);
static const char *(*p_error_name)(void);
static long long (*p_error_code)(void);

int ucn_probe_driver(void) {
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *e = dlerror();
        snprintf(load_error, sizeof load_error, "%s", e ? e : "libcuda.so.1: dlopen failed");
        return 1;
    }
    /* Keep it: the CUDA runtime inside the ops library opens it again anyway. */
    return 0;
}

static void *must_sym(const char *name) {
    void *s = dlsym(ops_handle, name);
    if (s == NULL && load_error[0] == 0)
        snprintf(load_error, sizeof load_error, "symbol %s missing from the ops library (version mismatch?)", name);
    return s;
}

int ucn_load(const char *nvshmem_host_path, const char *ops_path) {
    if (ops_ready) return 0;
    load_error[0] = 0;
    if (nvshmem_host_path != NULL && nvshmem_host_path[0] != 0) {
        /* Global, so that the ops library's DT_NEEDED libnvshmem_host.so.3 resolves to this copy by soname. */
        if (dlopen(nvshmem_host_path, RTLD_NOW | RTLD_GLOBAL) == NULL) {
            snprintf(load_error, sizeof load_error, "%s", dlerror());
            return 1;
        }
    }
    ops_handle = dlopen(ops_path, RTLD_NOW | RTLD_LOCAL);
    if (ops_handle == NULL) {
        snprintf(load_error, sizeof load_error, "%s", dlerror());
        return 1;
    }
#define UCN_RESOLVE(name, params, args) p_##name = (int (*) params) must_sym("ucn_ops_" #name);
    UCN_OPS_LIST(UCN_RESOLVE)
    p_error_call = (const char *(*)(void)) must_sym("ucn_ops_error_call");
    p_error_name = (const char *(*)(void)) must_sym("ucn_ops_error_name");
    p_error_code = (long long (*)(void)) must_sym("ucn_ops_error_code");
    if (load_error[0] != 0) return 1;
    ops_ready = 1;
    return 0;
}

int ucn_loaded(void) { return ops_ready; }

const char *ucn_load_error(void) { return load_error; }

int ucn_setenv(const char *name, const char *value, int overwrite) { return setenv(name, value, overwrite); }

const char *ucn_error_call(void) { return ops_ready ? p_error_call() : "ucn_load"; }

const char *ucn_error_name(void) { return ops_ready ? p_error_name() : "ops library not loaded"; }

long long ucn_error_code(void) { return ops_ready ? p_error_code() : UCN_ERR_NOT_LOADED; }

/* ucn_<name>(params) forwards to the ops library, or answers UCN_ERR_NOT_LOADED before ucn_load. */
#define UCN_FORWARD(name, params, args) \
    int ucn_##name params { return ops_ready ? p_##name args : UCN_ERR_NOT_LOADED; }
UCN_OPS_LIST(UCN_FORWARD)
