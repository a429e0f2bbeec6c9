/*
 * TEST DOUBLE - NOT ASCEND. libascend_standin_test_double.so exports the subset of the ACL runtime
 * and Ascend SHMEM (aclshmem) C API that unicomm's backend-ascend shim binds, implemented on host
 * memory: every PE's "device" symmetric heap (and host-side heap) lives in one POSIX shared-memory
 * object that all PEs of a job map, streams are worker threads, and "device memory" from aclrtMalloc
 * is ordinary process memory. It lets CI run loading, lifecycle, argument marshalling, stream
 * handling and error-code mapping through the conformance kit; it proves nothing about Ascend
 * hardware or the real libraries.
 *
 * It is deliberately strict where the real stack is strict: device operations on host pointers,
 * symmetric operations on non-symmetric addresses and PEs out of range abort the process with a
 * message naming the call (a marshalling bug in the binding), and ACL calls return ACL's codes.
 *
 * Environment:
 *   ASCEND_STANDIN_DEVICE_COUNT   devices aclrtGetDeviceCount reports (default 1)
 *   ASCEND_STANDIN_DEVICE_MEMORY  bytes aclrtMalloc may hand out per process (default 1 GiB)
 *   ASCEND_STANDIN_TRACE          file to append control-plane calls to; "%p" becomes the pid
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

/* ---- codes (values of the public ACL / aclshmem headers) ---------------------------------- */
#define ACL_OK 0
#define ACL_ERROR_INVALID_PARAM 100000
#define ACL_ERROR_REPEAT_INITIALIZE 100002
#define ACL_ERROR_RT_MEMORY_ALLOCATION 207001
#define ACL_ERROR_RT_STREAM_SYNC_TIMEOUT 507046
#define SHM_OK 0
#define SHM_INVALID_PARAM (-1)
#define SHM_INVALID_VALUE (-2)
#define SHM_INNER_ERROR (-4)
#define SHM_NOT_INITED (-5)
#define SHM_BOOTSTRAP_ERROR (-6)
#define SHM_TIMEOUT_ERROR (-7)
enum { MEMCPY_H2H, MEMCPY_H2D, MEMCPY_D2H, MEMCPY_D2D };
enum { SIGNAL_SET, SIGNAL_ADD };
enum { CMP_EQ, CMP_NE, CMP_GT, CMP_GE, CMP_LT, CMP_LE };
enum { HOST_SIDE, DEVICE_SIDE };
#define INIT_WITH_UNIQUEID (1 << 3)
#define UID_INNER_LEN 124

typedef struct {
    int32_t version;
    int my_pe;
    int n_pes;
    char internal[UID_INNER_LEN];
} uniqueid_t;
#define UID_VERSION ((1 << 16) + (int32_t)sizeof(uniqueid_t))
typedef struct {
    int version;
    int data_op_engine_type;
    uint32_t shm_init_timeout, shm_create_timeout, control_operation_timeout;
    int32_t sock_fd;
} optional_attr_t;
typedef struct {
    int my_pe;
    int n_pes;
    char ip_port[64];
    uint64_t local_mem_size;
    optional_attr_t option_attr;
    void *comm_args;
    uint64_t instance_id;
} init_attr_t;

/* ---- diagnostics ----------------------------------------------------------------------------- */
static __thread char last_error[256];

static int acl_fail(int code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return code;
}

/* A contract violation by the caller: the real library would corrupt memory or crash. */
static void violation(const char *call, const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "ascend stand-in (test double): contract violation in %s: %s\n", call, msg);
    fflush(stderr);
    abort();
}

static void trace(const char *fmt, ...) {
    const char *tmpl = getenv("ASCEND_STANDIN_TRACE");
    if (tmpl == NULL || *tmpl == 0) return;
    char path[512];
    size_t o = 0;
    for (const char *c = tmpl; *c && o < sizeof path - 24; c++) {
        if (c[0] == '%' && c[1] == 'p') {
            o += (size_t)snprintf(path + o, sizeof path - o, "%d", (int)getpid());
            c++;
        } else {
            path[o++] = *c;
        }
    }
    path[o] = 0;
    FILE *f = fopen(path, "a");
    if (f == NULL) return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fputc('\n', f);
    fclose(f);
}

static long env_long(const char *name, long def) {
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 10) : def;
}

static int64_t now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Spin politely: the CI machine has two cores shared by several jobs. */
static void backoff(unsigned *spins) {
    if (++*spins < 64) {
        sched_yield();
    } else {
        struct timespec t = {0, 50 * 1000};
        nanosleep(&t, NULL);
    }
}

/* ---- the shared job region ------------------------------------------------------------------- */
#define MAX_PES 64
#define MAX_TEAMS 64
#define HEAP_ALIGN (2u << 20)

typedef struct {
    int32_t start, stride, size, valid; /* in world PEs */
} team_entry;

typedef struct {
    uint64_t heap_size;            /* per PE and side; first joiner sets it */
    int32_t npes;
    int32_t joined;
    int32_t next_team;
    int32_t left;
    team_entry teams[MAX_TEAMS];
    int32_t mailbox[MAX_TEAMS];    /* leader of team t publishes the result of a split here */
    uint64_t alloc_check[MAX_PES]; /* each PE's (size, alignment, side) digest for the symmetry check */
    uint64_t arrive[MAX_TEAMS][MAX_PES];
} region_header;

#define HEADER_BYTES ((sizeof(region_header) + 4095) & ~(size_t)4095)

static struct {
    bool inited;
    int me, npes;
    uint64_t heap;
    uint8_t *base;
    size_t mapped;
    region_header *hdr;
    uint32_t timeout_ms;
    bool destroyed[MAX_TEAMS];
    bool tls_enable;
    char tls_info[1024];
} job = {.tls_enable = true};

static uint8_t *heap_of(int pe, int side) {
    return job.base + HEADER_BYTES + ((size_t)pe * 2 + (side == HOST_SIDE ? 1 : 0)) * job.heap;
}

/* Which symmetric heap of this PE holds [p, p+n), or -1. */
static int local_side(const void *p, size_t n) {
    if (!job.inited) return -1;
    for (int side = HOST_SIDE; side <= DEVICE_SIDE; side++) {
        uint8_t *b = heap_of(job.me, side);
        if ((const uint8_t *)p >= b && (const uint8_t *)p + n <= b + job.heap) return side;
    }
    return -1;
}

static uint8_t *remote(const char *call, const void *p, size_t n, int pe) {
    if (pe < 0 || pe >= job.npes) violation(call, "PE %d is outside 0..%d", pe, job.npes - 1);
    int side = local_side(p, n);
    if (side < 0) violation(call, "[%p, +%zu) is not inside this PE's symmetric heap", p, n);
    return heap_of(pe, side) + ((const uint8_t *)p - heap_of(job.me, side));
}

/* ---- "device" allocations (aclrtMalloc) -------------------------------------------------------- */
#define MAX_DEVICE_ALLOCS 4096
static struct {
    pthread_mutex_t lock;
    uint8_t *ptr[MAX_DEVICE_ALLOCS];
    size_t size[MAX_DEVICE_ALLOCS];
    size_t total;
} dev = {.lock = PTHREAD_MUTEX_INITIALIZER};

static bool in_device_alloc(const void *p, size_t n) {
    bool ok = false;
    pthread_mutex_lock(&dev.lock);
    for (int i = 0; i < MAX_DEVICE_ALLOCS && !ok; i++) {
        if (dev.ptr[i] && (const uint8_t *)p >= dev.ptr[i] && (const uint8_t *)p + n <= dev.ptr[i] + dev.size[i]) ok = true;
    }
    pthread_mutex_unlock(&dev.lock);
    return ok;
}

/* Memory a device engine may touch: aclrtMalloc memory or this PE's symmetric heaps. */
static bool device_reachable(const void *p, size_t n) { return in_device_alloc(p, n) || local_side(p, n) >= 0; }

static void need_device(const char *call, const char *what, const void *p, size_t n) {
    if (n > 0 && !device_reachable(p, n))
        violation(call, "%s [%p, +%zu) is host memory; the NPU cannot read or write it", what, p, n);
}

/* ---- barriers over teams ----------------------------------------------------------------------- */
static bool team_ok(int t) {
    return job.inited && t >= 0 && t < MAX_TEAMS && !job.destroyed[t] && job.hdr->teams[t].valid;
}

static int team_rank_of(int t, int world) {
    team_entry *e = &job.hdr->teams[t];
    int d = world - e->start;
    if (d < 0 || d % e->stride != 0 || d / e->stride >= e->size) return -1;
    return d / e->stride;
}

/* Returns false when aborted or out of time. */
static bool team_barrier(int t, volatile int *abort_flag, int64_t deadline_ms) {
    team_entry *e = &job.hdr->teams[t];
    uint64_t epoch = __atomic_add_fetch(&job.hdr->arrive[t][job.me], 1, __ATOMIC_ACQ_REL);
    for (int i = 0; i < e->size; i++) {
        int q = e->start + i * e->stride;
        unsigned spins = 0;
        while (__atomic_load_n(&job.hdr->arrive[t][q], __ATOMIC_ACQUIRE) < epoch) {
            if ((abort_flag && *abort_flag) || (deadline_ms > 0 && now_ms() > deadline_ms)) return false;
            backoff(&spins);
        }
    }
    return true;
}

static int64_t control_deadline(void) { return now_ms() + job.timeout_ms; }

/* ---- streams ----------------------------------------------------------------------------------- */
typedef enum { T_COPY, T_SET, T_PUT, T_GET, T_SIGNAL, T_WAIT, T_QUIET, T_BARRIER } task_kind;
typedef struct task {
    task_kind kind;
    uint8_t *dst, *src;
    size_t bytes;
    int value, op, team;
    struct task *next;
} task;
typedef struct stream {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    task *head, *tail;
    int busy;
    volatile int abort;
    int exit;
    struct stream *next_stream;
} stream;

static pthread_mutex_t streams_lock = PTHREAD_MUTEX_INITIALIZER;
static stream *all_streams;
static stream *default_stream;

static bool cmp_holds(int32_t v, int cmp, int32_t x) {
    switch (cmp) {
        case CMP_EQ: return v == x;
        case CMP_NE: return v != x;
        case CMP_GT: return v > x;
        case CMP_GE: return v >= x;
        case CMP_LT: return v < x;
        default: return v <= x;
    }
}

static void signal_apply(int32_t *word, int value, int op) {
    if (op == SIGNAL_SET) __atomic_store_n(word, value, __ATOMIC_RELEASE);
    else __atomic_fetch_add(word, value, __ATOMIC_ACQ_REL);
}

static void run(stream *s, task *t) {
    unsigned spins = 0;
    switch (t->kind) {
        case T_COPY: memcpy(t->dst, t->src, t->bytes); break;
        case T_SET: memset(t->dst, t->value, t->bytes); break;
        case T_PUT:
        case T_GET: memcpy(t->dst, t->src, t->bytes); __atomic_thread_fence(__ATOMIC_SEQ_CST); break;
        case T_SIGNAL: signal_apply((int32_t *)t->dst, t->value, t->op); break;
        case T_WAIT:
            while (!cmp_holds(__atomic_load_n((int32_t *)t->dst, __ATOMIC_ACQUIRE), t->op, t->value) && !s->abort)
                backoff(&spins);
            break;
        case T_QUIET: __atomic_thread_fence(__ATOMIC_SEQ_CST); break;
        case T_BARRIER: team_barrier(t->team, &s->abort, 0); break;
    }
}

static void *worker(void *arg) {
    stream *s = arg;
    pthread_mutex_lock(&s->lock);
    for (;;) {
        while (s->head == NULL && !s->exit) pthread_cond_wait(&s->cond, &s->lock);
        if (s->head == NULL && s->exit) break;
        task *t = s->head;
        s->head = t->next;
        if (s->head == NULL) s->tail = NULL;
        s->busy = 1;
        pthread_mutex_unlock(&s->lock);
        if (!s->abort) run(s, t);  /* an aborted stream discards what is left */
        free(t);
        pthread_mutex_lock(&s->lock);
        s->busy = 0;
        pthread_cond_broadcast(&s->cond);
    }
    pthread_mutex_unlock(&s->lock);
    return NULL;
}

static stream *stream_new(void) {
    stream *s = calloc(1, sizeof *s);
    pthread_mutex_init(&s->lock, NULL);
    pthread_cond_init(&s->cond, NULL);
    pthread_create(&s->thread, NULL, worker, s);
    pthread_setname_np(s->thread, "standin-stream"); /* so leak checks can count them */
    pthread_mutex_lock(&streams_lock);
    s->next_stream = all_streams;
    all_streams = s;
    pthread_mutex_unlock(&streams_lock);
    return s;
}

static stream *resolve(void *handle) {
    if (handle != NULL) return handle;
    pthread_mutex_lock(&streams_lock);
    stream *d = default_stream;
    pthread_mutex_unlock(&streams_lock);
    if (d == NULL) {
        d = stream_new();
        pthread_mutex_lock(&streams_lock);
        if (default_stream == NULL) default_stream = d;
        d = default_stream;
        pthread_mutex_unlock(&streams_lock);
    }
    return d;
}

static void enqueue(void *handle, task t) {
    stream *s = resolve(handle);
    task *n = malloc(sizeof *n);
    *n = t;
    n->next = NULL;
    pthread_mutex_lock(&s->lock);
    if (s->tail) s->tail->next = n;
    else s->head = n;
    s->tail = n;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
}

/* Waits until the stream is idle; on timeout discards its remaining work (as ACL does). */
static int stream_sync(stream *s, int32_t timeout_ms) {
    int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
    pthread_mutex_lock(&s->lock);
    while (s->head != NULL || s->busy) {
        if (deadline >= 0 && now_ms() >= deadline) {
            s->abort = 1;
            while (s->head != NULL || s->busy) pthread_cond_wait(&s->cond, &s->lock);
            s->abort = 0;
            pthread_mutex_unlock(&s->lock);
            return acl_fail(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, "stream synchronize timed out after %d ms", timeout_ms);
        }
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 2 * 1000 * 1000;
        if (until.tv_nsec >= 1000000000) { until.tv_sec++; until.tv_nsec -= 1000000000; }
        pthread_cond_timedwait(&s->cond, &s->lock, &until);
    }
    pthread_mutex_unlock(&s->lock);
    return ACL_OK;
}

/* ---- ACL runtime ------------------------------------------------------------------------------- */
static bool acl_inited;
static int current_device = -1;

EXPORT int aclInit(const char *config) {
    (void)config;
    if (acl_inited) return acl_fail(ACL_ERROR_REPEAT_INITIALIZE, "aclInit: already initialized");
    acl_inited = true;
    return ACL_OK;
}

EXPORT const char *aclGetRecentErrMsg(void) { return last_error; }

EXPORT int aclrtGetDeviceCount(uint32_t *count) {
    if (count == NULL) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtGetDeviceCount: count is NULL");
    long n = env_long("ASCEND_STANDIN_DEVICE_COUNT", 1);
    *count = n < 0 ? 0 : (uint32_t)n;
    return ACL_OK;
}

EXPORT int aclrtSetDevice(int32_t device) {
    uint32_t n;
    aclrtGetDeviceCount(&n);
    if (device < 0 || (uint32_t)device >= n)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtSetDevice: device %d does not exist (%u devices)", device, n);
    current_device = device;
    return ACL_OK;
}

EXPORT int aclrtResetDevice(int32_t device) {
    if (device != current_device) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtResetDevice: device %d is not set", device);
    current_device = -1;
    return ACL_OK;
}

EXPORT int aclrtMalloc(void **out, size_t size, int policy) {
    (void)policy;
    if (out == NULL || size == 0) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: NULL result or size 0");
    if (current_device < 0) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtMalloc: no device set");
    size_t limit = (size_t)env_long("ASCEND_STANDIN_DEVICE_MEMORY", 1L << 30);
    pthread_mutex_lock(&dev.lock);
    int slot = -1;
    for (int i = 0; i < MAX_DEVICE_ALLOCS && slot < 0; i++)
        if (dev.ptr[i] == NULL) slot = i;
    if (slot < 0 || size > limit - dev.total || size > limit) {
        pthread_mutex_unlock(&dev.lock);
        return acl_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtMalloc: %zu bytes exceed the %zu-byte device", size, limit);
    }
    void *p = NULL;
    if (posix_memalign(&p, 512, size) != 0) {
        pthread_mutex_unlock(&dev.lock);
        return acl_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, "aclrtMalloc: out of host memory");
    }
    dev.ptr[slot] = p;
    dev.size[slot] = size;
    dev.total += size;
    pthread_mutex_unlock(&dev.lock);
    *out = p;
    return ACL_OK;
}

EXPORT int aclrtFree(void *p) {
    pthread_mutex_lock(&dev.lock);
    for (int i = 0; i < MAX_DEVICE_ALLOCS; i++) {
        if (dev.ptr[i] == p && p != NULL) {
            dev.total -= dev.size[i];
            dev.ptr[i] = NULL;
            pthread_mutex_unlock(&dev.lock);
            free(p);
            return ACL_OK;
        }
    }
    pthread_mutex_unlock(&dev.lock);
    return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtFree: %p was not returned by aclrtMalloc", p);
}

static int check_copy(const char *call, void *dst, size_t max, const void *src, size_t count, int kind) {
    if (count > max) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: count %zu > destMax %zu", call, count, max);
    if (count == 0) return ACL_OK;
    if (dst == NULL || src == NULL) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: NULL pointer", call);
    bool dst_dev = device_reachable(dst, count), src_dev = device_reachable(src, count);
    bool ok = (kind == MEMCPY_H2H) || (kind == MEMCPY_H2D && dst_dev && !src_dev) ||
              (kind == MEMCPY_D2H && src_dev && !dst_dev) || (kind == MEMCPY_D2D && src_dev && dst_dev);
    if (!ok)
        return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: kind %d does not match the memory (dst %s, src %s)", call, kind,
                        dst_dev ? "device" : "host", src_dev ? "device" : "host");
    return ACL_OK;
}

EXPORT int aclrtMemcpy(void *dst, size_t max, const void *src, size_t count, int kind) {
    int rc = check_copy("aclrtMemcpy", dst, max, src, count, kind);
    if (rc == ACL_OK && count > 0) memmove(dst, src, count);
    return rc;
}

EXPORT int aclrtMemcpyAsync(void *dst, size_t max, const void *src, size_t count, int kind, void *s) {
    int rc = check_copy("aclrtMemcpyAsync", dst, max, src, count, kind);
    if (rc == ACL_OK && count > 0) enqueue(s, (task){.kind = T_COPY, .dst = dst, .src = (uint8_t *)src, .bytes = count});
    return rc;
}

static int check_set(const char *call, void *dst, size_t max, size_t count) {
    if (count > max) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: count %zu > maxCount %zu", call, count, max);
    if (count > 0 && !device_reachable(dst, count)) return acl_fail(ACL_ERROR_INVALID_PARAM, "%s: %p is not device memory", call, dst);
    return ACL_OK;
}

EXPORT int aclrtMemset(void *dst, size_t max, int32_t value, size_t count) {
    int rc = check_set("aclrtMemset", dst, max, count);
    if (rc == ACL_OK && count > 0) memset(dst, value, count);
    return rc;
}

EXPORT int aclrtMemsetAsync(void *dst, size_t max, int32_t value, size_t count, void *s) {
    int rc = check_set("aclrtMemsetAsync", dst, max, count);
    if (rc == ACL_OK && count > 0) enqueue(s, (task){.kind = T_SET, .dst = dst, .value = value, .bytes = count});
    return rc;
}

EXPORT int aclrtCreateStream(void **out) {
    if (out == NULL) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream: NULL");
    if (current_device < 0) return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtCreateStream: no device set");
    *out = stream_new();
    return ACL_OK;
}

static bool known_stream(stream *s) {
    bool found = false;
    pthread_mutex_lock(&streams_lock);
    for (stream *i = all_streams; i && !found; i = i->next_stream) found = (i == s);
    pthread_mutex_unlock(&streams_lock);
    return found;
}

EXPORT int aclrtDestroyStream(void *handle) {
    stream *s = handle;
    if (s == NULL || s == default_stream || !known_stream(s))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtDestroyStream: %p is not a stream", handle);
    pthread_mutex_lock(&streams_lock);
    for (stream **i = &all_streams; *i; i = &(*i)->next_stream)
        if (*i == s) { *i = s->next_stream; break; }
    pthread_mutex_unlock(&streams_lock);
    pthread_mutex_lock(&s->lock);
    s->abort = 1;  /* work still queued on a destroyed stream is dropped */
    s->exit = 1;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
    pthread_join(s->thread, NULL);
    free(s);
    return ACL_OK;
}

EXPORT int aclrtSynchronizeStreamWithTimeout(void *handle, int32_t timeout_ms) {
    if (handle != NULL && !known_stream(handle))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtSynchronizeStreamWithTimeout: %p is not a stream", handle);
    return stream_sync(resolve(handle), timeout_ms);
}

EXPORT int aclrtStreamQuery(void *handle, int *status) {
    if (status == NULL || (handle != NULL && !known_stream(handle)))
        return acl_fail(ACL_ERROR_INVALID_PARAM, "aclrtStreamQuery: bad stream %p or NULL status", handle);
    stream *s = resolve(handle);
    pthread_mutex_lock(&s->lock);
    *status = (s->head == NULL && !s->busy) ? 0 : 1; /* ACL_STREAM_STATUS_COMPLETE / NOT_READY */
    pthread_mutex_unlock(&s->lock);
    return ACL_OK;
}

EXPORT int aclrtSynchronizeDeviceWithTimeout(int32_t timeout_ms) {
    int64_t deadline = now_ms() + timeout_ms;
    stream *list[256];
    int n = 0;
    pthread_mutex_lock(&streams_lock);
    for (stream *i = all_streams; i && n < 256; i = i->next_stream) list[n++] = i;
    pthread_mutex_unlock(&streams_lock);
    for (int i = 0; i < n; i++) {
        int64_t left = deadline - now_ms();
        int rc = stream_sync(list[i], timeout_ms < 0 ? -1 : (int32_t)(left > 0 ? left : 0));
        if (rc != ACL_OK) return rc;
    }
    return ACL_OK;
}

static void heap_reset(void);

/* ---- aclshmem: control plane -------------------------------------------------------------------- */
EXPORT int32_t aclshmemx_set_conf_store_tls(bool enable, const char *info, uint32_t len) {
    if (job.inited) return SHM_INVALID_PARAM;  /* TLS can only change before init */
    job.tls_enable = enable;
    size_t n = info == NULL ? 0 : (len < sizeof job.tls_info - 1 ? len : sizeof job.tls_info - 1);
    if (n) memcpy(job.tls_info, info, n);
    job.tls_info[n] = 0;
    trace("aclshmemx_set_conf_store_tls enable=%d info=%s", enable ? 1 : 0, job.tls_info);
    return SHM_OK;
}

EXPORT int32_t aclshmemx_set_config_store_tls_key(const char *pk, uint32_t pk_len, const char *pw, uint32_t pw_len,
                                                  void *handler) {
    if (job.inited) return SHM_INVALID_PARAM;
    if ((pk == NULL) != (pk_len == 0) || (pw == NULL) != (pw_len == 0)) return SHM_INVALID_PARAM;
    /* Lengths only: a trace must never hold key material. */
    trace("aclshmemx_set_config_store_tls_key pk_len=%u pw_len=%u handler=%d", pk_len, pw_len, handler != NULL);
    return SHM_OK;
}

EXPORT int aclshmemx_get_uniqueid(uniqueid_t *uid) {
    static int counter;
    if (uid == NULL) return SHM_INVALID_PARAM;
    memset(uid, 0, sizeof *uid);
    uid->version = UID_VERSION;
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    snprintf(uid->internal, sizeof uid->internal, "/uca_standin_%d_%d_%ld", (int)getpid(), ++counter, (long)t.tv_nsec);
    trace("aclshmemx_get_uniqueid %s", uid->internal);
    return SHM_OK;
}

EXPORT int aclshmemx_set_attr_uniqueid_args(int pe, int npes, int64_t bytes, uniqueid_t *uid, init_attr_t *attr) {
    if (uid == NULL || attr == NULL || bytes <= 0 || npes > MAX_PES) return SHM_INVALID_VALUE;
    attr->my_pe = pe;
    attr->n_pes = npes;
    attr->local_mem_size = ((uint64_t)bytes + HEAP_ALIGN - 1) / HEAP_ALIGN * HEAP_ALIGN;
    attr->comm_args = uid;
    return SHM_OK;
}

EXPORT int aclshmemx_init_attr(int flags, init_attr_t *attr) {
    if (attr == NULL || flags != INIT_WITH_UNIQUEID) return SHM_INVALID_PARAM;
    if (job.inited) return SHM_INNER_ERROR;
    uniqueid_t *uid = attr->comm_args;
    if (uid == NULL || uid->version != UID_VERSION || uid->internal[0] != '/') return SHM_INVALID_PARAM;
    if (attr->n_pes <= 0 || attr->n_pes > MAX_PES || attr->my_pe < 0 || attr->my_pe >= attr->n_pes) return SHM_INVALID_VALUE;
    if (attr->option_attr.shm_init_timeout == 0 || attr->option_attr.control_operation_timeout == 0) return SHM_INVALID_VALUE;
    if (attr->option_attr.version != (1 << 16) + (int)sizeof(optional_attr_t)) return SHM_INVALID_PARAM;
    if (current_device < 0) return SHM_INNER_ERROR; /* aclrtSetDevice must come first */
    trace("aclshmemx_init_attr pe=%d npes=%d heap=%llu timeout_s=%u tls=%d", attr->my_pe, attr->n_pes,
          (unsigned long long)attr->local_mem_size, attr->option_attr.shm_init_timeout, job.tls_enable ? 1 : 0);
    uint64_t heap = attr->local_mem_size;
    size_t total = HEADER_BYTES + (size_t)attr->n_pes * 2 * heap;
    int fd = shm_open(uid->internal, O_CREAT | O_RDWR, 0600);
    if (fd < 0) return SHM_BOOTSTRAP_ERROR;
    struct stat st;
    if (fstat(fd, &st) != 0 || (st.st_size < (off_t)total && ftruncate(fd, (off_t)total) != 0)) {
        close(fd);
        return SHM_BOOTSTRAP_ERROR;
    }
    void *m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return SHM_BOOTSTRAP_ERROR;
    region_header *h = m;
    uint64_t expected = 0;
    if (!__atomic_compare_exchange_n(&h->heap_size, &expected, heap, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) &&
        expected != heap) {
        munmap(m, total);
        return SHM_INVALID_PARAM; /* "local size diffs": PEs asked for different heaps */
    }
    if (attr->my_pe == 0) {
        h->npes = attr->n_pes;
        h->teams[0] = (team_entry){0, 1, attr->n_pes, 1};
        __atomic_store_n(&h->next_team, 1, __ATOMIC_RELEASE);
    }
    __atomic_add_fetch(&h->joined, 1, __ATOMIC_ACQ_REL);
    int64_t deadline = now_ms() + (int64_t)attr->option_attr.shm_init_timeout * 1000;
    unsigned spins = 0;
    while (__atomic_load_n(&h->joined, __ATOMIC_ACQUIRE) < attr->n_pes ||
           __atomic_load_n(&h->next_team, __ATOMIC_ACQUIRE) == 0) {
        if (now_ms() > deadline) {
            munmap(m, total);
            if (attr->my_pe == 0) shm_unlink(uid->internal);
            return SHM_TIMEOUT_ERROR;
        }
        backoff(&spins);
    }
    /* Everyone has the region mapped: drop the name so nothing leaks if a process dies. */
    if (attr->my_pe == 0) shm_unlink(uid->internal);
    job.base = m;
    job.mapped = total;
    job.hdr = h;
    job.heap = heap;
    job.me = attr->my_pe;
    job.npes = attr->n_pes;
    job.timeout_ms = attr->option_attr.control_operation_timeout * 1000u;
    memset(job.destroyed, 0, sizeof job.destroyed);
    job.inited = true;
    heap_reset();
    return SHM_OK;
}

/* The symmetric allocator: first fit over a block list; identical call sequences give identical
 * offsets on every PE, which is what makes the heap symmetric. */
#define MAX_BLOCKS 4096
typedef struct { uint64_t off, size; int used; } block;
static block blocks[2][MAX_BLOCKS];
static int nblocks[2];

static void heap_reset(void) {
    for (int s = 0; s < 2; s++) {
        nblocks[s] = 1;
        blocks[s][0] = (block){0, job.heap, 0};
    }
}

EXPORT int aclshmem_finalize(void) {
    if (!job.inited) return SHM_NOT_INITED;
    trace("aclshmem_finalize pe=%d", job.me);
    bool ok = team_barrier(0, NULL, control_deadline());
    munmap(job.base, job.mapped);
    job.inited = false;
    nblocks[0] = nblocks[1] = 0;
    job.tls_enable = true;
    job.tls_info[0] = 0;
    return ok ? SHM_OK : SHM_TIMEOUT_ERROR;
}

EXPORT int aclshmem_my_pe(void) { return job.inited ? job.me : -1; }
EXPORT int aclshmem_n_pes(void) { return job.inited ? job.npes : -1; }

static void *symmetric_alloc(size_t alignment, size_t size, int side) {
    if (!job.inited || size == 0 || alignment == 0 || (alignment & (alignment - 1)) != 0) return NULL;
    /* Collective: all PEs must ask for the same thing, as the real library checks. */
    uint64_t digest = ((uint64_t)size * 1000003u) ^ ((uint64_t)alignment << 1) ^ (uint64_t)side;
    __atomic_store_n(&job.hdr->alloc_check[job.me], digest, __ATOMIC_RELEASE);
    if (!team_barrier(0, NULL, control_deadline())) return NULL;
    bool symmetric = true;
    for (int pe = 0; pe < job.npes; pe++)
        if (__atomic_load_n(&job.hdr->alloc_check[pe], __ATOMIC_ACQUIRE) != digest) symmetric = false;
    if (!team_barrier(0, NULL, control_deadline()) || !symmetric) return NULL;
    block *b = blocks[side];
    for (int i = 0; i < nblocks[side]; i++) {
        if (b[i].used) continue;
        uint64_t start = (b[i].off + alignment - 1) / alignment * alignment;
        uint64_t pad = start - b[i].off;
        if (pad + size > b[i].size) continue;
        if (nblocks[side] + 2 > MAX_BLOCKS) return NULL;
        if (pad > 0) { /* keep the padding as its own free block */
            memmove(&b[i + 1], &b[i], (size_t)(nblocks[side] - i) * sizeof(block));
            nblocks[side]++;
            b[i].size = pad;
            i++;
            b[i].off = start;
            b[i].size -= pad;
        }
        if (b[i].size > size) {
            memmove(&b[i + 1], &b[i], (size_t)(nblocks[side] - i) * sizeof(block));
            nblocks[side]++;
            b[i + 1].off = start + size;
            b[i + 1].size = b[i].size - size;
            b[i + 1].used = 0;
            b[i].size = size;
        }
        b[i].used = 1;
        return heap_of(job.me, side) + start;
    }
    return NULL;
}

static void symmetric_free(void *p, int side) {
    if (p == NULL || !job.inited) return;
    uint64_t off = (uint64_t)((uint8_t *)p - heap_of(job.me, side));
    block *b = blocks[side];
    int i = 0;
    while (i < nblocks[side] && !(b[i].used && b[i].off == off)) i++;
    if (i == nblocks[side]) violation("aclshmem_free", "%p was not returned by aclshmem_malloc/align", p);
    team_barrier(0, NULL, control_deadline()); /* freeing is collective */
    b[i].used = 0;
    if (i + 1 < nblocks[side] && !b[i + 1].used) { /* merge with the next free block */
        b[i].size += b[i + 1].size;
        memmove(&b[i + 1], &b[i + 2], (size_t)(nblocks[side] - i - 2) * sizeof(block));
        nblocks[side]--;
    }
    if (i > 0 && !b[i - 1].used) { /* and with the previous one */
        b[i - 1].size += b[i].size;
        memmove(&b[i], &b[i + 1], (size_t)(nblocks[side] - i - 1) * sizeof(block));
        nblocks[side]--;
    }
}

EXPORT void *aclshmem_align(size_t alignment, size_t size) { return symmetric_alloc(alignment, size, DEVICE_SIDE); }
EXPORT void *aclshmem_malloc(size_t size) { return symmetric_alloc(64, size, DEVICE_SIDE); }
EXPORT void aclshmem_free(void *p) { symmetric_free(p, DEVICE_SIDE); }
EXPORT void *aclshmemx_align(size_t alignment, size_t size, int side) {
    return side == HOST_SIDE || side == DEVICE_SIDE ? symmetric_alloc(alignment, size, side) : NULL;
}
EXPORT void aclshmemx_free(void *p, int side) {
    if (side != HOST_SIDE && side != DEVICE_SIDE) violation("aclshmemx_free", "bad memory side %d", side);
    symmetric_free(p, side);
}

EXPORT void *aclshmem_ptr(void *p, int pe) {
    if (!job.inited || pe < 0 || pe >= job.npes || local_side(p, 1) < 0) return NULL;
    return remote("aclshmem_ptr", p, 1, pe);
}

/* ---- aclshmem: data plane ---------------------------------------------------------------------- */
static void need_inited(const char *call) {
    if (!job.inited) violation(call, "called before aclshmemx_init_attr");
}

static void put_common(const char *call, void *dst, void *src, size_t n, int pe) {
    need_inited(call);
    uint8_t *r = remote(call, dst, n, pe);
    need_device(call, "source", src, n);
    memcpy(r, src, n);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void get_common(const char *call, void *dst, void *src, size_t n, int pe) {
    need_inited(call);
    uint8_t *r = remote(call, src, n, pe);
    need_device(call, "destination", dst, n);
    memcpy(dst, r, n);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static int32_t *signal_word(const char *call, void *sig, int pe) {
    if (((uintptr_t)sig & 3) != 0) violation(call, "signal address %p is not 4-byte aligned", sig);
    return (int32_t *)remote(call, sig, sizeof(int32_t), pe);
}

static void need_op(const char *call, int op) {
    if (op != SIGNAL_SET && op != SIGNAL_ADD) violation(call, "signal op %d is neither SET nor ADD", op);
}

EXPORT void aclshmem_putmem(void *dst, void *src, size_t n, int32_t pe) { put_common("aclshmem_putmem", dst, src, n, pe); }
EXPORT void aclshmem_getmem(void *dst, void *src, size_t n, int32_t pe) { get_common("aclshmem_getmem", dst, src, n, pe); }
EXPORT void aclshmem_putmem_nbi(void *dst, void *src, size_t n, int32_t pe) { put_common("aclshmem_putmem_nbi", dst, src, n, pe); }
EXPORT void aclshmem_getmem_nbi(void *dst, void *src, size_t n, int32_t pe) { get_common("aclshmem_getmem_nbi", dst, src, n, pe); }

static void put_signal(const char *call, void *dst, void *src, size_t n, void *sig, int32_t value, int op, int pe) {
    need_op(call, op);
    int32_t *word = signal_word(call, sig, pe);
    put_common(call, dst, src, n, pe);
    signal_apply(word, value, op); /* after the data, as the API promises */
}

EXPORT void aclshmemx_putmem_signal(void *dst, void *src, size_t n, void *sig, int32_t value, int op, int pe) {
    put_signal("aclshmemx_putmem_signal", dst, src, n, sig, value, op, pe);
}
EXPORT void aclshmemx_putmem_signal_nbi(void *dst, void *src, size_t n, void *sig, int32_t value, int op, int pe) {
    put_signal("aclshmemx_putmem_signal_nbi", dst, src, n, sig, value, op, pe);
}

static void need_stream(const char *call, void *s) {
    if (s != NULL && !known_stream(s)) violation(call, "%p is not a stream", s);
}

EXPORT void aclshmemx_putmem_on_stream(void *dst, void *src, size_t n, int32_t pe, void *s) {
    const char *call = "aclshmemx_putmem_on_stream";
    need_inited(call);
    need_stream(call, s);
    uint8_t *r = remote(call, dst, n, pe);
    need_device(call, "source", src, n);
    enqueue(s, (task){.kind = T_PUT, .dst = r, .src = src, .bytes = n});
}

EXPORT void aclshmemx_getmem_on_stream(void *dst, void *src, size_t n, int32_t pe, void *s) {
    const char *call = "aclshmemx_getmem_on_stream";
    need_inited(call);
    need_stream(call, s);
    uint8_t *r = remote(call, src, n, pe);
    need_device(call, "destination", dst, n);
    enqueue(s, (task){.kind = T_GET, .dst = dst, .src = r, .bytes = n});
}

EXPORT void aclshmemx_signal_op_on_stream(int32_t *sig, int32_t value, int op, int pe, void *s) {
    const char *call = "aclshmemx_signal_op_on_stream";
    need_inited(call);
    need_stream(call, s);
    need_op(call, op);
    enqueue(s, (task){.kind = T_SIGNAL, .dst = (uint8_t *)signal_word(call, sig, pe), .value = value, .op = op});
}

EXPORT void aclshmemx_signal_wait_until_on_stream(int32_t *sig, int cmp, int32_t value, void *s) {
    const char *call = "aclshmemx_signal_wait_until_on_stream";
    need_inited(call);
    need_stream(call, s);
    if (cmp < CMP_EQ || cmp > CMP_LE) violation(call, "comparison %d is not one of ACLSHMEM_CMP_*", cmp);
    enqueue(s, (task){.kind = T_WAIT, .dst = (uint8_t *)signal_word(call, sig, job.me), .value = value, .op = cmp});
}

EXPORT void aclshmemx_quiet_on_stream(void *s) {
    need_inited("aclshmemx_quiet_on_stream");
    need_stream("aclshmemx_quiet_on_stream", s);
    enqueue(s, (task){.kind = T_QUIET});
}

EXPORT void aclshmemx_barrier_on_stream(int team, void *s) {
    const char *call = "aclshmemx_barrier_on_stream";
    need_inited(call);
    need_stream(call, s);
    if (!team_ok(team) || team_rank_of(team, job.me) < 0) violation(call, "team %d is not a team of PE %d", team, job.me);
    enqueue(s, (task){.kind = T_BARRIER, .team = team});
}

/* ---- aclshmem: teams ---------------------------------------------------------------------------- */
/* The parent's rank 0 reserves team slots and publishes them in the parent's mailbox. */
static int reserve_slots(int parent, int count) {
    int mine = team_rank_of(parent, job.me);
    if (mine == 0) {
        int first = __atomic_fetch_add(&job.hdr->next_team, count, __ATOMIC_ACQ_REL);
        __atomic_store_n(&job.hdr->mailbox[parent], first + count <= MAX_TEAMS ? first : -1, __ATOMIC_RELEASE);
    }
    if (!team_barrier(parent, NULL, control_deadline())) return -2;
    int first = __atomic_load_n(&job.hdr->mailbox[parent], __ATOMIC_ACQUIRE);
    if (!team_barrier(parent, NULL, control_deadline())) return -2; /* mailbox free for the next split */
    return first;
}

EXPORT int aclshmem_team_split_strided(int parent, int start, int stride, int size, int *out) {
    if (out == NULL || !team_ok(parent) || team_rank_of(parent, job.me) < 0) return SHM_INVALID_PARAM;
    team_entry p = job.hdr->teams[parent];
    if (start < 0 || stride < 1 || size < 1 || start + (int64_t)stride * (size - 1) >= p.size) return SHM_INVALID_PARAM;
    int slot = reserve_slots(parent, 1);
    trace("aclshmem_team_split_strided parent=%d start=%d stride=%d size=%d -> slot %d", parent, start, stride, size, slot);
    if (slot == -2) return SHM_TIMEOUT_ERROR;
    if (slot < 0) return SHM_INNER_ERROR; /* out of team slots */
    team_entry e = {p.start + start * p.stride, stride * p.stride, size, 1};
    if (team_rank_of(parent, job.me) == 0) job.hdr->teams[slot] = e;
    if (!team_barrier(parent, NULL, control_deadline())) return SHM_TIMEOUT_ERROR;
    *out = team_rank_of(slot, job.me) >= 0 ? slot : -1;
    return SHM_OK;
}

EXPORT int aclshmem_team_split_2d(int parent, int x_range, int *x_team, int *y_team) {
    if (x_team == NULL || y_team == NULL || !team_ok(parent) || x_range < 1) return SHM_INVALID_PARAM;
    int me = team_rank_of(parent, job.me);
    if (me < 0) return SHM_INVALID_PARAM;
    team_entry p = job.hdr->teams[parent];
    int rows = (p.size + x_range - 1) / x_range, cols = x_range < p.size ? x_range : p.size;
    int first = reserve_slots(parent, rows + cols);
    trace("aclshmem_team_split_2d parent=%d x_range=%d -> slots %d..%d", parent, x_range, first, first + rows + cols - 1);
    if (first == -2) return SHM_TIMEOUT_ERROR;
    if (first < 0) return SHM_INNER_ERROR;
    if (me == 0) {
        for (int r = 0; r < rows; r++) {
            int n = p.size - r * x_range < x_range ? p.size - r * x_range : x_range;
            job.hdr->teams[first + r] = (team_entry){p.start + r * x_range * p.stride, p.stride, n, 1};
        }
        for (int c = 0; c < cols; c++)
            job.hdr->teams[first + rows + c] =
                (team_entry){p.start + c * p.stride, x_range * p.stride, (p.size - c + x_range - 1) / x_range, 1};
    }
    if (!team_barrier(parent, NULL, control_deadline())) return SHM_TIMEOUT_ERROR;
    *x_team = first + me / x_range;
    *y_team = first + rows + me % x_range;
    return SHM_OK;
}

EXPORT int aclshmem_team_translate_pe(int src, int pe, int dst) {
    if (!team_ok(src) || !team_ok(dst) || pe < 0 || pe >= job.hdr->teams[src].size) return -1;
    team_entry s = job.hdr->teams[src];
    return team_rank_of(dst, s.start + pe * s.stride);
}

EXPORT int aclshmem_team_my_pe(int team) { return team_ok(team) ? team_rank_of(team, job.me) : -1; }
EXPORT int aclshmem_team_n_pes(int team) { return team_ok(team) ? job.hdr->teams[team].size : -1; }

EXPORT void aclshmem_team_destroy(int team) {
    if (team == 0) violation("aclshmem_team_destroy", "the world team cannot be destroyed");
    if (!team_ok(team)) violation("aclshmem_team_destroy", "team %d is not a live team", team);
    trace("aclshmem_team_destroy team=%d", team);
    job.destroyed[team] = true;
}
